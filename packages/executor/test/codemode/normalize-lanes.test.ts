/**
 * The Code Mode form's code is read off the caller's thread (src/codemode/normalize-lanes.ts): acorn and
 * amaro ran in IsolateExecutor.execute itself, where 170 KB of TypeScript shaped for amaro held the
 * application's event loop 9 s. Each attack that could end a process runs in a child process of
 * its own, through an executor of its own, and a typed program must run after it in the same
 * executor. Then one caller's slow read must not hold another caller's execution.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  CODE_LIMIT_RULE,
  cancelledMessage,
  executionTimeoutMessage,
  faultEnvelope,
  OVERLOADED_MESSAGE,
  sourceLimitMessage,
} from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { CODE_TOO_DEEP_MESSAGE } from '../../src/codemode/errors.ts';
import {
  CodeNormalizer,
  DISPOSED_BEFORE_START,
  INLINE_READ_LIMIT,
  NORMALIZER_HEAP_LIMIT_MB,
  NORMALIZER_LANES,
} from '../../src/codemode/normalize-lanes.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import { ENTRY_NAME } from '../../src/sandbox/modules.ts';
import { CODE_NAME, nestingMessage } from '../../src/sandbox/sources/nesting-scan.ts';
import { eraserFailedMessage } from '../../src/sandbox/sources/typescript.ts';
import { workerOutOfMemoryMessage } from '../../src/sandbox/threads/deadline-worker.ts';

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
const executorModule = fileURLToPath(new URL('../../src/executor/isolate-executor.ts', import.meta.url));
const normalizerModule = fileURLToPath(new URL('../../src/codemode/normalize-lanes.ts', import.meta.url));

/** A typed program every attack is followed by: it must still be read and run. */
const TYPED = 'const n: number = 2;\nreturn n * 3';

/**
 * amaro's TypeScript parser tries `<` as the start of type arguments at every level and reads the
 * parenthesis after it again when that fails: 120 levels of it cost it seconds per few lines. The
 * `let` of every line is redeclared, so acorn refuses the code as JavaScript and it is erased.
 */
const slowToErase = () => `${`let x = ${'a < (b'.repeat(120)}${')'.repeat(120)};\n`.repeat(400)}x`;

/**
 * The attack the expression `attack` builds (an argument cannot hold 10 MB), then TYPED, in a
 * child process: both envelopes as JSON.
 */
async function inChild(attack: string, timeout: number): Promise<{ attack: unknown; after: unknown }> {
  const script = `
import { IsolateExecutor } from ${JSON.stringify(executorModule)};
const executor = new IsolateExecutor({ poolSize: 1, timeout: ${timeout} });
const attack = await executor.execute(${attack}, {});
const after = await executor.execute(${JSON.stringify(TYPED)}, {});
await executor.dispose();
console.log(JSON.stringify({ attack, after }));
`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageRoot,
    encoding: 'utf8',
    timeout: 90_000,
    maxBuffer: 2 ** 24,
  });
  return JSON.parse(stdout) as { attack: unknown; after: unknown };
}

describe('attacks on the read, each in a process of its own, then a typed program', () => {
  const after = { result: 6, logs: [] };
  /** The envelope as the child's JSON carries it, without its undefined result. */
  const fault = (...args: Parameters<typeof faultEnvelope>) =>
    JSON.parse(JSON.stringify(faultEnvelope(...args)));

  test('10 MB of TypeScript is refused by its size before any parser reads it', async () => {
    const outcome = await inChild(`'const a: number = 1;\\n'.repeat(500_000)`, 5000);
    expect(outcome).toStrictEqual({
      attack: fault('BAD_REQUEST', sourceLimitMessage(['code'], CODE_LIMIT_RULE)),
      after,
    });
  });

  test('10^5 nested parentheses are refused by the nesting scan', async () => {
    const outcome = await inChild(
      `'let x: number = ' + '('.repeat(1e5) + '1' + ')'.repeat(1e5) + ';\\nreturn x'`,
      5000,
    );
    expect(outcome).toStrictEqual({ attack: fault('BAD_REQUEST', nestingMessage(CODE_NAME, 1)), after });
  });

  test('10^5 nested generics, which the scan does not count, overflow amaro in its thread, not the process', async () => {
    // The lane's erasure fails and the code goes on as written; the sandbox erases it again, in its
    // own thread, and names the failure.
    const outcome = await inChild(
      `'let x: ' + 'A<'.repeat(1e5) + 'B' + '>'.repeat(1e5) + ' = 1;\\nreturn x'`,
      20_000,
    );
    expect(outcome).toStrictEqual({
      attack: fault('BAD_REQUEST', eraserFailedMessage(ENTRY_NAME)),
      after,
    });
  });

  test('an erasure past the run bound ends with the envelope of a run past it', async () => {
    // The typed program after it loads amaro afresh in a fresh thread, on the same bound.
    const outcome = await inChild(`(${slowToErase})()`, 3000);
    expect(outcome).toStrictEqual({ attack: fault('TIMEOUT', executionTimeoutMessage(3000)), after });
  });
});

describe('one caller reading slowly', () => {
  const executor = new IsolateExecutor({ poolSize: 1, timeout: 3000 });
  afterAll(() => executor.dispose());

  test("holds neither another caller's execution in flight nor a typed one started after it", async () => {
    expect(await executor.execute('async () => 0')).toStrictEqual({ result: 0, logs: [] });
    const settled: string[] = [];
    const track = <T>(name: string, execution: Promise<T>) =>
      execution.then((envelope) => {
        settled.push(name);
        return envelope;
      });
    const trivial = track('trivial', executor.execute('async () => 1'));
    const attack = track('attack', executor.execute(slowToErase(), {}));
    const typed = track('typed', executor.execute(TYPED, {}));
    expect(await trivial).toStrictEqual({ result: 1, logs: [] });
    expect(await typed).toStrictEqual({ result: 6, logs: [] });
    expect(settled).not.toContain('attack');
    expect(await attack).toStrictEqual(faultEnvelope('TIMEOUT', executionTimeoutMessage(3000)));
  });
});

describe('callers sharing the lanes', () => {
  const executor = new IsolateExecutor({ poolSize: 1, timeout: 1500 });
  afterAll(() => executor.dispose());

  test("one caller's flood of slow reads in every lane holds another caller's typed program only until one lane frees", async () => {
    expect(await executor.execute('async () => 0')).toStrictEqual({ result: 0, logs: [] });
    const settled: string[] = [];
    const track = <T>(name: string, execution: Promise<T>) =>
      execution.then((envelope) => {
        settled.push(name);
        return envelope;
      });
    // Twice as many slow reads as lanes: one wave in the lanes, one waiting behind it.
    const flood = Array.from({ length: 2 * NORMALIZER_LANES }, () =>
      track('a', executor.execute(slowToErase(), {}, { callerId: 'a' })),
    );
    const typed = track('b', executor.execute(TYPED, {}, { callerId: 'b' }));
    expect(await typed).toStrictEqual({ result: 6, logs: [] });
    for (const envelope of await Promise.all(flood)) {
      expect(envelope).toStrictEqual(faultEnvelope('TIMEOUT', executionTimeoutMessage(1500)));
    }
    // The first lane to free went to b, which held none; the waiting wave of a's reads ended after it.
    expect(settled.slice(settled.indexOf('b') + 1)).toStrictEqual(Array(NORMALIZER_LANES).fill('a'));
  });

  test('a caller id that is not a string of 1 to 128 characters is BAD_REQUEST, in both forms', async () => {
    const refused = {
      result: undefined,
      error: 'options.callerId must be a string of 1 to 128 characters.',
      code: 'BAD_REQUEST',
      logs: [],
    };
    for (const callerId of ['', 'c'.repeat(129), 7]) {
      expect(
        await executor.execute({ code: 'async () => 1' }, { callerId: callerId as string }),
      ).toStrictEqual(refused);
      expect(await executor.execute('async () => 1', {}, { callerId: callerId as string })).toStrictEqual(
        refused,
      );
    }
    expect(await executor.execute('async () => 1', {}, { callerId: 'c'.repeat(128) })).toStrictEqual({
      result: 1,
      logs: [],
    });
  });
});

describe('an executor whose queue is full', () => {
  const executor = new IsolateExecutor({ poolSize: 1, timeout: 1000, queueLimit: 0 });
  afterAll(() => executor.dispose());

  test('answers a Code Mode read that finds every lane busy with OVERLOADED, as it answers an execution', async () => {
    const slow = Array.from({ length: NORMALIZER_LANES }, () => executor.execute(slowToErase(), {}));
    expect(await executor.execute(TYPED, {})).toStrictEqual(faultEnvelope('OVERLOADED', OVERLOADED_MESSAGE));
    for (const envelope of await Promise.all(slow)) {
      expect(envelope).toStrictEqual(faultEnvelope('TIMEOUT', executionTimeoutMessage(1000)));
    }
    expect(await executor.execute(TYPED, {})).toStrictEqual({ result: 6, logs: [] });
  });
});

describe('the normalizer', () => {
  test('reads short JavaScript on the calling thread and everything else in a lane, with the same entry', async () => {
    const normalizer = new CodeNormalizer({ lanes: 1 });
    afterAll(() => normalizer.dispose());
    const statements = 'const a = 1;\nreturn a';
    const long = `${'// padding\n'.repeat(INLINE_READ_LIMIT / 10)}${statements}`;
    expect((await normalizer.normalize(statements, true, 5000)).code).toBe(
      'async () => {\nconst a = 1;\nreturn a\n}',
    );
    const { code: entry } = await normalizer.normalize(long, true, 5000);
    expect(entry.endsWith('return a\n}')).toBe(true);
    expect((await normalizer.normalize('const a: number = 1;\na', true, 5000)).code).toBe(
      'async () => {\nconst a         = 1;\n\nreturn (a);\n}',
    );
  });

  test('a read waiting for the only lane is not charged the time the lane spent on another', async () => {
    const normalizer = new CodeNormalizer({ lanes: 1 });
    afterAll(() => normalizer.dispose());
    const slow = normalizer.normalize(slowToErase(), true, 1000);
    const waiting = normalizer.normalize('const a: number = 1;\na', true, 1000);
    await expect(slow).rejects.toThrow(executionTimeoutMessage(1000));
    expect((await waiting).code).toBe('async () => {\nconst a         = 1;\n\nreturn (a);\n}');
  });

  test('reads waiting for a lane are bounded: past the bound a read is refused at once as overloaded', async () => {
    // Each waiting read holds its code (up to CODE_LIMIT) until a lane frees; unbounded, a flood of
    // slow reads grows the embedding process without limit while the pool's own queue stays bounded.
    const normalizer = new CodeNormalizer({ lanes: 1, waitLimit: 1 });
    afterAll(() => normalizer.dispose());
    const slow = normalizer.normalize(slowToErase(), true, 1000);
    const waiting = normalizer.normalize('const a: number = 1;\na', true, 1000);
    await expect(normalizer.normalize('const b: number = 2;\nb', true, 1000)).rejects.toThrow(
      OVERLOADED_MESSAGE,
    );
    await expect(slow).rejects.toThrow(executionTimeoutMessage(1000));
    expect((await waiting).code).toBe('async () => {\nconst a         = 1;\n\nreturn (a);\n}');
  });

  test("operators chained past the reader's stack are refused as the code's fault, with or without TypeScript", async () => {
    // Brackets are counted before any parser runs; unary operators, assignments and arrows are not.
    // Read as unreadable, such code went on as written and the engine named a syntax error in the
    // executor's wrapper, `Unexpected token 'return' [executor.js:7:1]`, for valid statements.
    const normalizer = new CodeNormalizer({ lanes: 1 });
    afterAll(() => normalizer.dispose());
    for (const code of [`return ${'!'.repeat(200_000)}1`, `let a;\nreturn ${'a = '.repeat(100_000)}1`]) {
      for (const typescript of [false, true]) {
        await expect(normalizer.normalize(code, typescript, 60_000)).rejects.toThrow(CODE_TOO_DEEP_MESSAGE);
      }
    }
  });

  test('disposal ends pending reads and later ones with the cancellation the pool gives', async () => {
    const normalizer = new CodeNormalizer({ lanes: 1 });
    const pending = normalizer.normalize('const a: number = 1;\na', true, 5000);
    normalizer.dispose();
    const cancelled = cancelledMessage(DISPOSED_BEFORE_START);
    await expect(pending).rejects.toThrow(cancelled);
    await expect(normalizer.normalize('async () => 1', true, 5000)).rejects.toThrow(cancelled);
  });

  test("a read past its thread's heap bound is refused as the code's fault, and the lane reads the next one", async () => {
    // A thread out of heap may take its process with it, so the attack runs in a process of its own.
    // A megabyte of array elements is within CODE_LIMIT and parses into more than 40 MB of nodes;
    // 40 MB still loads amaro for the typed read after it.
    const script = `
import { CodeNormalizer } from ${JSON.stringify(normalizerModule)};
const normalizer = new CodeNormalizer({ lanes: 1, heapLimitMb: 40 });
const huge = 'return [' + '1,'.repeat(520000) + ']';
const attack = await normalizer.normalize(huge, false, 60000).then(
  (entry) => ({ entry: entry.code.length }),
  (error) => ({ name: error.constructor.name, message: error.message }),
);
const after = (await normalizer.normalize('const a: number = 1;\\na', true, 60000)).code;
normalizer.dispose();
console.log(JSON.stringify({ attack, after }));
`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageRoot,
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(JSON.parse(stdout)).toStrictEqual({
      attack: { name: 'BadRequestError', message: workerOutOfMemoryMessage(40) },
      after: 'async () => {\nconst a         = 1;\n\nreturn (a);\n}',
    });
    // The bound the executor's own lanes use leaves the worst megabyte measured room to read.
    expect(NORMALIZER_HEAP_LIMIT_MB).toBeGreaterThanOrEqual(256);
  }, 120_000);
});
