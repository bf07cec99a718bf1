/**
 * The pool's ordinary work, through real children: envelopes, tool calls crossing to the parent
 * and back as frames, binary values, host-wait edges, spreading work, the payload bound on each
 * crossing, and cancellation.
 */
import { readFileSync } from 'node:fs';
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { busyChild, TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

describe('an execution in a child', () => {
  test('comes back as its envelope, with its logs', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute({
      code: `async () => { console.log('one', 2); console.warn('careful'); return { answer: 42 } }`,
    });
    expect(envelope).toStrictEqual({
      result: { answer: 42 },
      logs: [
        { level: 'log', text: 'one 2' },
        { level: 'warn', text: 'careful' },
      ],
    });
  });

  test("keeps the envelope keys in the order the sandbox's specification prints them", async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute({ code: 'async () => { throw new Error("no") }', timeout: 1000 });
    // The error's kind, name and frames come after everything the specification prints (docs/sandbox.md).
    expect(Object.keys(envelope)).toStrictEqual([
      'result',
      'error',
      'logs',
      'errorKind',
      'errorName',
      'errorStack',
    ]);
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'no',
      logs: [],
      errorKind: 'thrown',
      errorName: 'Error',
      errorStack: '    at executor.js:1:21',
    });
  });

  test('calls tools in the parent: each call crosses as a dispatch message and comes back as a frame', async () => {
    const { pool } = usePool({ size: 1 });
    const tools = new Tools();
    const envelope = await pool.execute(
      {
        code: `async () => {
          const echoed = await tools.echo({ deep: [1, 'two'] })
          let failure
          try { await tools.fail('the tool said no') } catch (error) { failure = error.message }
          return { echoed, failure }
        }`,
        providers: TOOLS_PROVIDER,
      },
      { dispatch: tools.dispatch },
    );
    expect(envelope).toStrictEqual({
      result: { echoed: { deep: [1, 'two'] }, failure: 'the tool said no' },
      logs: [],
    });
    expect(tools.calls.map((call) => call.tool)).toStrictEqual(['echo', 'fail']);
  });

  test('a dispatch function that throws reaches the program as a thrown error, without a host stack', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute(
      {
        code: `async () => { try { await tools.boom() } catch (error) { return [error.message, String(error.stack).includes('node:')] } }`,
        providers: TOOLS_PROVIDER,
      },
      {
        dispatch: () => {
          throw new Error('the dispatch function failed');
        },
      },
    );
    expect(envelope.result).toStrictEqual(['the dispatch function failed', false]);
  });

  test('without a dispatch function every tool is unknown', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute({ code: 'async () => tools.read()', providers: TOOLS_PROVIDER });
    expect(envelope.error).toBe('Tool tools.read does not exist: no provider serves it.');
    expect(envelope.code).toBeUndefined();
  });

  test('binary values survive both crossings: to the tool and back, and in the result', async () => {
    const { pool } = usePool({ size: 1 });
    let received: unknown;
    const envelope = await pool.execute(
      {
        code: `async () => {
          const back = await tools.bytes(new Uint8Array([0, 1, 254, 255]))
          return { back, sum: back.reduce((a, b) => a + b, 0), view: new Float64Array([1.5]) }
        }`,
        providers: TOOLS_PROVIDER,
      },
      {
        dispatch: async (_provider, _tool, argsJson) => {
          const { parseForDispatch, stringifyForDispatch } = await import('@supolka/codemode-protocol');
          received = (parseForDispatch(argsJson) as unknown[])[0];
          return stringifyForDispatch({ result: new Uint8Array([9, 8, 7]) });
        },
      },
    );
    expect(received).toStrictEqual(new Uint8Array([0, 1, 254, 255]));
    expect(envelope.result).toStrictEqual({
      back: new Uint8Array([9, 8, 7]),
      sum: 24,
      view: new Float64Array([1.5]),
    });
  });

  test('forwards both host-wait edges, in order with the tool call they surround', async () => {
    const { pool } = usePool({ size: 1 });
    const seen: string[] = [];
    const envelope = await pool.execute(
      {
        code: 'async () => { await tools.work(); await tools.work(); return "done" }',
        providers: TOOLS_PROVIDER,
      },
      {
        dispatch: async () => {
          seen.push('tool');
          return '{"result":null}';
        },
        onHostWaitChanged: (waiting) => seen.push(waiting ? 'wait' : 'resume'),
      },
    );
    expect(envelope.result).toBe('done');
    expect(seen).toStrictEqual(['wait', 'tool', 'resume', 'wait', 'tool', 'resume']);
  });

  test('a cancel during a tool call still closes the host wait for the caller', async () => {
    const { pool } = usePool({ size: 1 });
    const tools = new Tools();
    const seen: string[] = [];
    const controller = new AbortController();
    const running = pool.execute(
      { code: 'async () => tools.gate("held")', providers: TOOLS_PROVIDER },
      {
        dispatch: tools.dispatch,
        signal: controller.signal,
        onHostWaitChanged: (waiting) => seen.push(waiting ? 'wait' : 'resume'),
      },
    );
    await tools.arrived('held');
    controller.abort();
    expect((await running).code).toBe('CANCELLED');
    expect(seen).toStrictEqual(['wait', 'resume']);
  });

  test('a tool answer past PAYLOAD_LIMIT is refused on the way back, and the program meets the error', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute(
      {
        code: `async () => { try { await tools.huge() } catch (error) { return error.message } }`,
        providers: TOOLS_PROVIDER,
      },
      { dispatch: () => JSON.stringify({ result: 'x'.repeat(PAYLOAD_LIMIT) }) },
    );
    expect(envelope.result).toMatch(
      new RegExp(
        `^The dispatchReply message is \\d+ bytes, past the ${PAYLOAD_LIMIT}-byte payload limit\\.$`,
      ),
    );
  });

  test('a request past PAYLOAD_LIMIT never queues: it comes back as PAYLOAD_TOO_LARGE', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute({ code: `async () => ${JSON.stringify('x'.repeat(PAYLOAD_LIMIT))}` });
    expect(envelope).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', result: undefined, logs: [] });
    expect(envelope.error).toMatch(/^The execute message is \d+ bytes, past the \d+-byte payload limit\.$/);
  });

  test('a request that fails the schema in the child comes back as BAD_REQUEST, and the child serves on', async () => {
    const { pool } = usePool({ size: 1 });
    const envelope = await pool.execute({ code: 'async () => 1', timeout: 0 });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Invalid execute message: request.timeout must be at least 1 ms.',
      code: 'BAD_REQUEST',
      logs: [],
    });
    expect(await pool.execute({ code: 'async () => 2' })).toStrictEqual({ result: 2, logs: [] });
  });
});

describe('spreading work', () => {
  test('two executions at once run in two different children', async () => {
    const { pool } = usePool({ size: 2 });
    const tools = new Tools();
    const run = (name: string) =>
      pool.execute(
        { code: `async () => tools.gate('${name}')`, providers: TOOLS_PROVIDER },
        { dispatch: tools.dispatch },
      );
    const first = run('a');
    const second = run('b');
    await Promise.all([tools.arrived('a'), tools.arrived('b')]);
    const states = pool.stats().children.map((child) => child.state);
    expect(states).toStrictEqual(['busy', 'busy']);
    tools.open('a');
    tools.open('b');
    expect(await first).toStrictEqual({ result: 'a', logs: [] });
    expect(await second).toStrictEqual({ result: 'b', logs: [] });
  });

  test('at light load the warm child whose isolate is ready takes all the work', async () => {
    const { pool } = usePool({ size: 2 });
    const allPrepared = async () => {
      while (!pool.stats().children.every((child) => child.prepared)) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await pool.engine();
    await allPrepared();
    for (let index = 0; index < 4; index++) {
      await pool.execute({ code: 'async () => 1' });
      await allPrepared();
    }
    const counts = pool
      .stats()
      .children.map((child) => child.executions)
      .sort();
    expect(counts).toStrictEqual([0, 4]);
  });

  test('a child runs one execution at a time; the next waits in the queue in order', async () => {
    const { pool } = usePool({ size: 1 });
    const tools = new Tools();
    const order: string[] = [];
    const run = (name: string) =>
      pool
        .execute(
          { code: `async () => tools.gate('${name}')`, providers: TOOLS_PROVIDER },
          { dispatch: tools.dispatch },
        )
        .then((envelope) => order.push(String(envelope.result)));
    const all = [run('first'), run('second'), run('third')];
    await tools.arrived('first');
    expect(pool.stats().queued).toBe(2);
    tools.open('third');
    tools.open('second');
    tools.open('first');
    await Promise.all(all);
    expect(order).toStrictEqual(['first', 'second', 'third']);
  });
});

describe('cancellation through a signal', () => {
  test('a running execution ends at once with CANCELLED, and its child serves the next one', async () => {
    const { pool } = usePool({ size: 1 });
    const tools = new Tools();
    const controller = new AbortController();
    const running = pool.execute(
      { code: `async () => tools.gate('never')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch, signal: controller.signal },
    );
    await tools.arrived('never');
    const pid = busyChild(pool);
    controller.abort(new Error('the user pressed stop'));
    expect(await running).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: the user pressed stop',
      code: 'CANCELLED',
      logs: [],
    });
    expect(await pool.execute({ code: 'async () => "next"' })).toStrictEqual({ result: 'next', logs: [] });
    expect(pool.stats().children.map((child) => child.pid)).toStrictEqual([pid]);
  });

  test('a queued execution leaves the queue at once with CANCELLED', async () => {
    const { pool } = usePool({ size: 1 });
    const tools = new Tools();
    const blocker = pool.execute(
      { code: `async () => tools.gate('hold')`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    await tools.arrived('hold');
    const controller = new AbortController();
    const queued = pool.execute({ code: 'async () => "never ran"' }, { signal: controller.signal });
    expect(pool.stats().queued).toBe(1);
    controller.abort();
    expect(await queued).toMatchObject({ code: 'CANCELLED', result: undefined });
    expect(pool.stats().queued).toBe(0);
    tools.open('hold');
    expect(await blocker).toStrictEqual({ result: 'hold', logs: [] });
  });

  test('an already aborted signal never starts the execution', async () => {
    const { pool } = usePool({ size: 1 });
    let called = false;
    const envelope = await pool.execute(
      { code: 'async () => tools.x()', providers: TOOLS_PROVIDER },
      {
        signal: AbortSignal.abort(new Error('too late')),
        dispatch: () => {
          called = true;
          return '{}';
        },
      },
    );
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: too late',
      code: 'CANCELLED',
      logs: [],
    });
    expect(called).toBe(false);
  });
});

describe('the engine report', () => {
  test('children run with the flags every process hosting isolates needs (adr/0002)', async () => {
    const { pool, log } = usePool({ size: 1 });
    await pool.engine();
    const [pid] = log.pids('spawned');
    const flags = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(flags).toEqual(expect.arrayContaining(['--no-node-snapshot', '--no-wasm-code-gc']));
  });

  test('callers before the first report share one wait, however many ask', async () => {
    const { pool } = usePool({ size: 1 });
    const asked = Array.from({ length: 50 }, () => pool.engine());
    expect(new Set(asked).size).toBe(1);
    expect((await asked[0])?.node).toBe(process.version);
  });

  test('reaches the parent through the heartbeat, with every fallback in force on the workspace engine', async () => {
    const { pool } = usePool({ size: 1 });
    const report = await pool.engine();
    expect(report.node).toBe(process.version);
    expect(Object.keys(report.behaviours).sort()).toStrictEqual([
      'dynamicImportCallback',
      'moduleCodeCache',
      'settleAfterTopLevelAwait',
      'unhandledRejectionCallback',
    ]);
    expect(report.fallbacks).toHaveLength(4);
  });
});
