/**
 * Runtime pieces (packages/runtime/src/pieces.ts, src/sandbox/setup/pieces.ts): code kept out of the
 * startup snapshot and compiled into an isolate on first use. Most tests here use tr46, which the
 * URL parser loads for the first host that is not ASCII (streams-piece.test.ts tests the streams
 * piece, the last one here the legacy single-byte tables). What holds for it holds for the mechanism:
 * the program sees the runtime it saw when tr46 was in the snapshot, wherever and however it first
 * touches the piece, and cannot reach the loader or make it load twice. Each program's answer here
 * was also taken from the runtime before the piece existed (tr46 in the snapshot): the same.
 */
import { MIN_MEMORY_LIMIT, memoryLimitMessage } from '@supolka/codemode-protocol';
import { RUNTIME_PIECES } from '@supolka/codemode-runtime/pieces';
import { expect, test } from 'vitest';
import { pieceSource, UNKNOWN_PIECE_MESSAGE } from '../../src/sandbox/setup/pieces.ts';
import { prepareIsolate } from '../../src/sandbox/setup/prepared-isolate.ts';
import { resultOf, T, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const run = (code: string) => resultOf(sandbox, code);

const HOSTS = `['http://bücher.de/', 'https://faß.example/', 'http://ÄÖÜ.de/'].map((input) => new URL(input).host)`;
const ASCII_HOSTS = ['xn--bcher-kva.de', 'xn--fa-hia.example', 'xn--4ca0bs.de'];

test('a host that is not ASCII loads tr46, which parses the next ones too, and no global appears', async () => {
  const result = await run(`async () => {
    const before = Reflect.ownKeys(globalThis).map(String);
    const first = ${HOSTS};
    const second = ${HOSTS};
    const after = Reflect.ownKeys(globalThis).map(String);
    return { first, second, same: JSON.stringify(before) === JSON.stringify(after) };
  }`);
  expect(result).toStrictEqual({ first: ASCII_HOSTS, second: ASCII_HOSTS, same: true });
});

test("tr46's failures are the parser's failures", async () => {
  const result = await run(`async () => { ${T}
    return [t(() => new URL('http://a\u00ad\u200d.example/').host), URL.canParse('http://a\u200d.example/'),
      t(() => new URL('http://☃.net/').host), t(() => new URL('http://a.\u0661\u0031.example/').host)];
  }`);
  expect(result).toStrictEqual([
    'TypeError: Invalid URL string.',
    false,
    'xn--n3h.net',
    'TypeError: Invalid URL string.',
  ]);
});

test('a module that parses such a host at its top level, while modules load, loads it', async () => {
  const envelope = await sandbox.execute({
    modules: { 'hosts.js': `export default ${HOSTS};` },
    code: `import hosts from './hosts.js'
async () => hosts`,
  });
  expect(envelope).toStrictEqual({ result: ASCII_HOSTS, logs: [] });
});

test('it loads at the smallest memory limit accepted', async () => {
  const envelope = await sandbox.execute({ memoryLimit: MIN_MEMORY_LIMIT, code: `async () => ${HOSTS}` });
  expect(envelope).toStrictEqual({ result: ASCII_HOSTS, logs: [] });
});

test("a program that replaced, deleted or froze Object's functions and the prototypes first changes nothing", async () => {
  const result = await run(`async () => {
    Object.getOwnPropertyNames = () => { throw new Error('replaced'); };
    delete Object.defineProperty;
    delete Object.getOwnPropertyDescriptor;
    Object.freeze(Object);
    Object.freeze(Object.prototype);
    Object.freeze(Array.prototype);
    Object.freeze(Function.prototype);
    return ${HOSTS};
  }`);
  expect(result).toStrictEqual(ASCII_HOSTS);
});

test("a program that replaced the globals the piece's top level reads first changes nothing", async () => {
  // tr46's table is JSON.parse'd and punycode keeps Math.floor and String.fromCharCode when they
  // evaluate: in the snapshot that was before any program ran. Math.floor is also read on each
  // call, in the snapshot as now, so it is replaced by one that counts and answers the same.
  const result = await run(`async () => {
    const called = [];
    JSON.parse = () => { called.push('JSON.parse'); throw new Error('replaced'); };
    String.fromCharCode = () => { called.push('String.fromCharCode'); return 'Z'; };
    const floor = Math.floor;
    let floors = 0;
    Math.floor = (value) => { floors++; return floor(value); };
    return { hosts: ${HOSTS}, called, floored: floors > 0 };
  }`);
  expect(result).toStrictEqual({ hosts: ASCII_HOSTS, called: [], floored: true });
});

test('the loading calls no getter a program put on Object.prototype, and such a getter may load it itself', async () => {
  const result = await run(`async () => {
    const called = [];
    for (const key of ['exports', 'deref', 'release', 'loadPiece', 'tr46', 'toASCII', 'default', '__esModule']) {
      Object.defineProperty(Object.prototype, key, { get() { called.push(key); return new URL('http://é.example/').host; }, configurable: true });
    }
    const hosts = ${HOSTS};
    const before = [...called];
    return { hosts, called: before, reentered: ({}).exports };
  }`);
  expect(result).toStrictEqual({ hosts: ASCII_HOSTS, called: [], reentered: 'xn--9ca.example' });
});

test('a stack overflow in the middle of the first load leaves it loadable, with the same answers', async () => {
  const result = await run(`async () => {
    const outcomes = [];
    const dive = () => {
      try {
        dive();
      } catch (error) {
        if (outcomes.at(-1) !== 'xn--bcher-kva.de') {
          try { outcomes.push(new URL('http://bücher.de/').host); } catch (inner) { outcomes.push(inner.name + ': ' + inner.message); }
        }
        throw error;
      }
    };
    try { dive(); } catch {}
    // A regular expression of tr46 compiled with no stack left fails as a SyntaxError, as it did in the snapshot.
    const kinds = [...new Set(outcomes.map((outcome) => /^SyntaxError: Invalid regular expression: .*: Stack overflow$/s.test(outcome) ? 'SyntaxError: stack overflow' : outcome))];
    return { kinds, after: ${HOSTS} };
  }`);
  expect(result).toStrictEqual({
    kinds: [
      'RangeError: Maximum call stack size exceeded',
      'SyntaxError: stack overflow',
      'xn--bcher-kva.de',
    ],
    after: ASCII_HOSTS,
  });
});

test('it loads whether the isolate runs on the host thread or on its own', async () => {
  for (const synchronous of [true, false]) {
    const prepared = prepareIsolate({ memoryLimit: 128 });
    try {
      const code = `new URL('http://bücher.de/').host`;
      const host = synchronous
        ? prepared.handle.context.evalSync(code)
        : await prepared.handle.context.eval(code);
      expect(host).toBe('xn--bcher-kva.de');
    } finally {
      prepared.handle.isolate.dispose();
    }
  }
});

test('the host answers the source of the pieces it has and knows no other names', () => {
  for (const name of [
    '__proto__',
    'constructor',
    'toString',
    'TR46',
    'x'.repeat(10 * 1024 * 1024),
    1,
    undefined,
    {},
  ])
    expect(() => pieceSource(name)).toThrow(UNKNOWN_PIECE_MESSAGE);
  expect(pieceSource('tr46')).toBe(RUNTIME_PIECES.tr46);
});

test("the program's pending reactions run after its synchronous code, not inside the load", async () => {
  const envelope = await sandbox.execute({
    modules: {
      'order.js': `export const log = []; Promise.resolve().then(() => log.push('reaction')); new URL('http://bücher.de/'); log.push('after the URL');`,
    },
    code: `import { log } from './order.js'
async () => {
  const inRun = [];
  Promise.resolve().then(() => inRun.push('reaction'));
  new URL('http://faß.example/');
  inRun.push('after the URL');
  await null;
  return [log, inRun];
}`,
  });
  expect(envelope).toStrictEqual({
    result: [
      ['after the URL', 'reaction'],
      ['after the URL', 'reaction'],
    ],
    logs: [],
  });
});

test('a program that meets its memory limit while the piece loads ends with the memory limit', async () => {
  const outcomes = new Set<string>();
  for (let chunks = 30; chunks <= 80; chunks += 2) {
    const envelope = await sandbox.execute({
      memoryLimit: MIN_MEMORY_LIMIT,
      code: `async () => { const keep = []; for (let i = 0; i < ${chunks}; i++) keep.push(new Array(16384).fill(i)); return new URL('http://bücher.de/').host; }`,
    });
    outcomes.add(
      envelope.error === undefined ? `result ${envelope.result}` : `${envelope.code}: ${envelope.error}`,
    );
  }
  expect([...outcomes].sort()).toStrictEqual([
    `MEMORY_LIMIT: ${memoryLimitMessage(MIN_MEMORY_LIMIT)}`,
    'result xn--bcher-kva.de',
  ]);
});

test('a legacy single-byte decoder loads the tables piece, while modules load and at the smallest memory limit', async () => {
  expect(pieceSource('singleByteTables')).toBe(RUNTIME_PIECES.singleByteTables);
  const decode = `[new TextDecoder('latin1').decode(new Uint8Array([0x80, 0xe9])), new TextDecoder('koi8-r').decode(new Uint8Array([0xc1]))]`;
  const envelope = await sandbox.execute({
    memoryLimit: MIN_MEMORY_LIMIT,
    modules: { 'decoded.js': `export default ${decode};` },
    code: `import decoded from './decoded.js'
async () => [decoded, ${decode}]`,
  });
  expect(envelope).toStrictEqual({
    result: [
      ['€é', 'а'],
      ['€é', 'а'],
    ],
    logs: [],
  });
});
