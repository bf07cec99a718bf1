/**
 * The legacyDecoders runtime piece (packages/runtime/src/encoding/legacy-decoders.ts): the decoders
 * of UTF-16 and the legacy single-byte encodings are kept out of the startup snapshot, and the
 * first TextDecoder for such an encoding loads them; UTF-8's decoder stays in the snapshot. The
 * piece reads the decoder helpers, the single-byte indexes and the primordials from the snapshot.
 */
import { MIN_MEMORY_LIMIT } from '@supolka/codemode-protocol';
import { RUNTIME_PIECES } from '@supolka/codemode-runtime/pieces';
import { expect, test } from 'vitest';
import { pieceSource } from '../../src/sandbox/setup/pieces.ts';
import { resultOf, useSandbox } from '../helpers.ts';
import { firstUseOnAnExhaustedStack, OVERFLOWED_THEN_LOADED } from './piece-probes.ts';

const sandbox = useSandbox();
const run = (code: string) => resultOf(sandbox, code);

/** Each decoder of the piece, a fatal failure, and a streamed UTF-16 decode split inside a unit. */
const DECODE = `(() => {
  const bytes = (...values) => new Uint8Array(values);
  const fatal = (() => { try { new TextDecoder('utf-16le', { fatal: true }).decode(bytes(0x00, 0xd8)); return 'decoded'; } catch (error) { return error.name + ': ' + error.message; } })();
  const streamed = new TextDecoder('utf-16be');
  return [
    new TextDecoder('utf-16le').decode(bytes(0xff, 0xfe, 0x68, 0x00, 0x69, 0x00)),
    new TextDecoder('utf-16be').decode(bytes(0x00, 0x68, 0x00, 0x69)),
    new TextDecoder('windows-1252').decode(bytes(0x80, 0x41)),
    new TextDecoder('x-user-defined').decode(bytes(0x41, 0x80)).codePointAt(1),
    streamed.decode(bytes(0x00), { stream: true }) + streamed.decode(bytes(0x41)),
    fatal,
  ];
})()`;

const DECODED = ['hi', 'hi', '€A', 0xf780, 'A', 'TypeError: Failed to decode input.'];

test('the host keeps the decoders as a piece, and they decode as before', async () => {
  expect(pieceSource('legacyDecoders')).toBe(RUNTIME_PIECES.legacyDecoders);
  const result = await run(
    `async () => [new TextDecoder().decode(new Uint8Array([0xc3, 0xa9])), ${DECODE}, ${DECODE}]`,
  );
  expect(result).toStrictEqual(['é', DECODED, DECODED]);
});

test("a module's top level, while modules load, loads it at the smallest memory limit accepted", async () => {
  const envelope = await sandbox.execute({
    memoryLimit: MIN_MEMORY_LIMIT,
    modules: { 'decoded.js': `export default ${DECODE};` },
    code: `import decoded from './decoded.js'
async () => [decoded, ${DECODE}]`,
  });
  expect(envelope).toStrictEqual({ result: [DECODED, DECODED], logs: [] });
});

test("a program that replaced the globals and Object's functions first changes nothing, and none is called", async () => {
  const result = await run(`async () => {
    const called = [];
    const replace = (owner, key, name) => { owner[key] = function () { called.push(name); throw new Error('replaced ' + name); }; };
    const OwnTextDecoder = TextDecoder;
    for (const name of ['Uint16Array', 'TypeError', 'RangeError', 'Symbol']) replace(globalThis, name, name);
    replace(String, 'fromCharCode', 'String.fromCharCode');
    replace(Object, 'keys', 'Object.keys');
    replace(Object, 'defineProperty', 'Object.defineProperty');
    Object.freeze(Object);
    Object.freeze(Object.prototype);
    const text = new OwnTextDecoder('utf-16le').decode(new Uint8Array([0x41, 0x00])) + new OwnTextDecoder('latin1').decode(new Uint8Array([0x80]));
    return { text, called };
  }`);
  expect(result).toStrictEqual({ text: 'A€', called: [] });
});

test('a stack overflow in the middle of the first load leaves it loadable', async () => {
  const result = await run(`async () => {
    ${firstUseOnAnExhaustedStack("new TextDecoder('utf-16le')")}
    return { outcomes: [...outcomes].sort(), after: ${DECODE} };
  }`);
  expect(result).toStrictEqual({ outcomes: OVERFLOWED_THEN_LOADED, after: DECODED });
});
