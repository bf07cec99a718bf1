/** Sandbox.execute as a whole: its order, its finally clause, its hook, cancellation and prepared isolates. */
import { describe, expect, test, vi } from 'vitest';
import { type ExecutionSettled, Sandbox } from '../../src/sandbox/sandbox.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

test('a trailing line comment in user code cannot swallow the invocation', async () => {
  expect(await sandbox.execute({ code: 'async () => 1 // done' })).toStrictEqual({ result: 1, logs: [] });
});

test('a program that ends its arrow with a semicolon runs', async () => {
  expect((await sandbox.execute({ code: 'async () => { return 2 };\n' })).result).toBe(2);
});

test('a bad provider name comes back in the envelope with BAD_REQUEST, and no isolate is created', async () => {
  const envelope = await sandbox.execute({ code: 'async () => 1', providers: [{ name: 'my-tools' }] });
  expect(envelope).toStrictEqual({
    result: undefined,
    error:
      'Provider name "my-tools" is not a valid JavaScript identifier, so code could not call name.tool().',
    code: 'BAD_REQUEST',
    logs: [],
  });
});

test('a syntax error in the program comes back in the envelope', async () => {
  const envelope = await sandbox.execute({ code: 'async () => {' });
  expect(envelope).toMatchObject({ result: undefined, error: expect.stringMatching(/^Unexpected token/) });
  expect(envelope.code).toBeUndefined();
});

test('a thrown non-Error comes back as an error, not as success', async () => {
  expect(await sandbox.execute({ code: `async () => { throw 'a string' }` })).toStrictEqual({
    result: undefined,
    error: 'a string',
    logs: [],
    errorKind: 'thrown',
  });
  expect(await sandbox.execute({ code: 'async () => { throw { code: 42 } }' })).toMatchObject({
    error: '[object Object]',
  });
});

test('a result the codec cannot carry becomes the error it raised', async () => {
  expect(await sandbox.execute({ code: 'async () => 10n' })).toStrictEqual({
    result: undefined,
    error: 'Do not know how to serialize a BigInt',
    logs: [],
    errorKind: 'thrown',
    errorName: 'TypeError',
  });
  const cyclic = await sandbox.execute({ code: 'async () => { const a = {}; a.self = a; return a }' });
  expect(cyclic.error).toMatch(/circular structure/);
});

test('every execution gets a fresh isolate: nothing survives between runs', async () => {
  await sandbox.execute({ code: 'async () => { globalThis.leak = "from the first run" }' });
  expect((await sandbox.execute({ code: 'async () => typeof globalThis.leak' })).result).toBe('undefined');
});

test('a request whose memory limit differs from the prepared isolate gets its own', async () => {
  const envelope = await sandbox.execute({
    memoryLimit: 32,
    code: 'async () => { const keep = []; for (;;) keep.push(new Array(100000).fill(1)) }',
  });
  expect(envelope.code).toBe('MEMORY_LIMIT');
  expect((await sandbox.execute({ code: 'async () => "after"' })).result).toBe('after');
});

test('onPrepared fires each time an isolate is ready ahead, and a throw from it is dropped', async () => {
  let fired = 0;
  const observed = new Sandbox({
    onPrepared: () => {
      fired++;
      throw new Error('observer failure');
    },
  });
  const ready = () => new Promise((resolve) => setImmediate(resolve));
  try {
    await ready();
    expect([fired, observed.preparedMemoryLimit]).toStrictEqual([1, 128]);
    expect((await observed.execute({ code: 'async () => 1' })).result).toBe(1);
    await ready();
    expect([fired, observed.preparedMemoryLimit]).toStrictEqual([2, 128]);
  } finally {
    observed.dispose();
  }
});

test('the next isolate is prepared at the memory limit the latest request asked for', async () => {
  const prepared = new Sandbox();
  const ready = () => new Promise((resolve) => setImmediate(resolve));
  try {
    await ready();
    expect(prepared.preparedMemoryLimit).toBe(128);
    await prepared.execute({ memoryLimit: 48, code: 'async () => 1' });
    await ready();
    expect(prepared.preparedMemoryLimit).toBe(48);
    await prepared.execute({ memoryLimit: 48, code: 'async () => 2' });
    await ready();
    expect(prepared.preparedMemoryLimit).toBe(48);
  } finally {
    prepared.dispose();
  }
});

describe('onExecutionSettled', () => {
  test('fires once per execution, with duration and outcome, and a throw from it is dropped', async () => {
    const settled = vi.fn((_info: ExecutionSettled): void => {
      throw new Error('observer failure');
    });
    const observed = new Sandbox({ onExecutionSettled: settled, prepareAhead: false });
    try {
      expect(await observed.execute({ code: 'async () => 1' })).toStrictEqual({ result: 1, logs: [] });
      await observed.execute({ code: 'async () => { throw new Error("x") }' });
      await observed.execute({ code: 'async () => 1', providers: [{ name: 'class' }] });
      expect(settled).toHaveBeenCalledTimes(3);
      expect(settled.mock.calls.map(([info]) => [info.outcome, info.code])).toStrictEqual([
        ['success', undefined],
        ['error', undefined],
        ['error', 'BAD_REQUEST'],
      ]);
      for (const [info] of settled.mock.calls) expect(info.durationMs).toBeGreaterThanOrEqual(0);
    } finally {
      observed.dispose();
    }
  });
});

describe('cancellation', () => {
  test('aborting disposes the isolate at once and resolves with CANCELLED', async () => {
    const controller = new AbortController();
    const envelope = await sandbox.execute({
      signal: controller.signal,
      code: 'async () => { console.log("started"); for (;;) {} }',
      // Aborted once the run is in its loop, not at a time by which it should be.
      onConsole: () => setTimeout(() => controller.abort(), 50),
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: This operation was aborted',
      code: 'CANCELLED',
      logs: [{ level: 'log', text: 'started' }],
    });
  });

  test('an already aborted signal never starts the run', async () => {
    const envelope = await sandbox.execute({
      signal: AbortSignal.abort(new Error('not wanted')),
      code: 'async () => 1',
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: not wanted',
      code: 'CANCELLED',
      logs: [],
    });
  });

  test('aborting while a tool call is pending ends the run without waiting for the tool', async () => {
    const controller = new AbortController();
    const running = sandbox.execute({
      signal: controller.signal,
      providers: [{ name: 'slow' }],
      dispatch: () => new Promise(() => {}),
      code: 'async () => slow.never()',
    });
    setTimeout(() => controller.abort(), 20);
    expect((await running).code).toBe('CANCELLED');
  });
});

test('a tool call that settles after its run has ended meets a released clock, and the host survives', async () => {
  let release: (value: string) => void = () => {};
  const envelope = await sandbox.execute({
    timeout: 100,
    countHostWaits: true,
    providers: [{ name: 'slow' }],
    dispatch: () =>
      new Promise<string>((resolve) => {
        release = resolve;
      }),
    code: 'async () => slow.wait()',
  });
  expect(envelope.code).toBe('TIMEOUT');
  release('{"result":"too late"}');
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect((await sandbox.execute({ code: 'async () => "still serving"' })).result).toBe('still serving');
});
