/**
 * The printed examples of the sandbox's specification (docs/sandbox.md), run through Sandbox. Each
 * prints what the specification shows, plus the envelope's `code` where the executor ended the run
 * (docs/pool.md, "Outcomes"), and after everything the specification prints, the error's kind,
 * name and stack where user code ended it (both deviations are listed in docs/sandbox.md).
 */
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

describe('the completion accessor', () => {
  test('a program that assigns through the setter reports its own run', async () => {
    const envelope = await sandbox.execute({
      timeout: 3_000,
      code: `async () => {
      globalThis.__resultJson = JSON.stringify({ result: 'the program reported this' })
      await new Promise(() => {})
      return 'the arrow never reaches here'
    }`,
    });
    expect(envelope).toStrictEqual({ result: 'the program reported this', logs: [] });
  });

  test('redefining the accessor meets Cannot redefine', async () => {
    const envelope = await sandbox.execute({
      timeout: 3_000,
      code: `async () => {
      try {
        Object.defineProperty(globalThis, '__resultJson', { value: 'replaced' })
      } catch (failure) {
        return failure.message
      }
      return 'the accessor was replaced'
    }`,
    });
    expect(envelope).toStrictEqual({ result: 'Cannot redefine property: __resultJson', logs: [] });
  });
});

describe('engine words', () => {
  test('a program that throws them early keeps its own', async () => {
    const envelope = await sandbox.execute({
      timeout: 2_000,
      code: `async () => { throw new Error('Script execution timed out.') }`,
    });
    // The specification's envelope, then the error's kind, name and stack (docs/sandbox.md, "Error
    // kinds, names and positions").
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Script execution timed out.',
      logs: [],
      errorKind: 'thrown',
      errorName: 'Error',
      errorStack: '    at executor.js:1:21',
    });
  });

  test('a program that spins past timeout + grace gets them rewritten', async () => {
    const envelope = await sandbox.execute({ timeout: 2_000, code: 'async () => { for (;;) {} }' });
    expect(envelope).toStrictEqual({
      result: undefined,
      error:
        'Execution timed out at its 2000 ms bound. Do less work per run and return the part that is already finished.',
      code: 'TIMEOUT',
      logs: [],
    });
  });
});

test('a CommonJS module that two facades require runs once per facade', async () => {
  const envelope = await sandbox.execute({
    code: `import left from './left.js'
import right from './right.js'

async () => ({ left, right, runs: globalThis.runs })`,
    modules: {
      './shared.js': {
        cjs: `globalThis.runs = (globalThis.runs ?? 0) + 1
module.exports = { run: globalThis.runs }`,
      },
      './left.js': { cjs: `module.exports = require('./shared.js')` },
      './right.js': { cjs: `module.exports = require('./shared.js')` },
    },
  });
  expect(envelope).toStrictEqual({ result: { left: { run: 1 }, right: { run: 2 }, runs: 2 }, logs: [] });
});

test("the specification's entry example: an import, a provider and a tool call", async () => {
  const envelope = await sandbox.execute({
    code: `import { greet } from 'greeter'
async () => greet(await files.read('notes.txt'))`,
    modules: { greeter: `export const greet = (text) => 'hello ' + text` },
    providers: [{ name: 'files' }],
    dispatch: async (_provider, _tool, args) =>
      JSON.stringify({ result: `contents of ${JSON.parse(args)[0]}` }),
  });
  expect(envelope).toStrictEqual({ result: 'hello contents of notes.txt', logs: [] });
});
