/**
 * ExecutorClient (the protocol package's, over Node's own WebSocket) against a real server: tool
 * calls served on the client's side, binary values both ways, a tool that throws, proxied fetch,
 * retained handles, cancellation, the dispatch deadline, the per-connection cap, and 50
 * concurrent executions over one connection.
 */
import { PAYLOAD_LIMIT, REASON_ECHO_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import {
  connectionCapMessage,
  dispatchUnansweredMessage,
  NATIVE_OUTBOUND_REFUSED_MESSAGE,
} from '../src/texts.ts';
import { connect, deferred, expectPoolClean, useServer } from './helpers.ts';

const CAP = 60;
const setup = useServer({ maxExecutionsPerConnection: CAP, executor: { poolSize: 2 } });

describe('an execution over the socket', () => {
  test('serves tool calls from the client, binary values crossing both ways', async () => {
    const client = await connect(setup.server);
    const seen: unknown[] = [];
    const envelope = await client.execute({
      code: `async () => {
        console.log('start');
        const bytes = await files.read('a.bin');
        const sum = await math.add(bytes[0], bytes[2]);
        const view = await db.get({ id: 7 });
        return { sum, bytes, view, back: await files.echo(new Float64Array([1.5, -2])) };
      }`,
      providers: [
        { name: 'math', fns: { add: (a: number, b: number) => a + b } },
        {
          name: 'files',
          fns: {
            read: (name: string) => {
              seen.push(name);
              return new Uint8Array([1, 2, 3]);
            },
            echo: (value: Float64Array) => {
              seen.push(value);
              return value.buffer;
            },
          },
        },
        { name: 'db', positionalArgs: false, fns: { get: ({ id }: { id: number }) => ({ id, factor: 10 }) } },
      ],
    });
    expect(envelope).toStrictEqual({
      result: {
        sum: 4,
        bytes: new Uint8Array([1, 2, 3]),
        view: { id: 7, factor: 10 },
        back: new Float64Array([1.5, -2]).buffer,
      },
      logs: [{ level: 'log', text: 'start' }],
    });
    expect(seen).toStrictEqual(['a.bin', new Float64Array([1.5, -2])]);
  });

  test('a tool that throws fails the call inside the program; an unknown tool is named', async () => {
    const client = await connect(setup.server);
    const envelope = await client.execute({
      code: `async () => {
        const caught = await kv.get('x').catch((error) => error.message);
        const missing = await kv.nope().catch((error) => error.message);
        return { caught, missing, inherited: await kv.toString().catch((error) => error.message) };
      }`,
      providers: [
        {
          name: 'kv',
          fns: {
            get: () => {
              throw new Error('kv is down');
            },
          },
        },
      ],
    });
    expect(envelope).toStrictEqual({
      result: {
        caught: 'kv is down',
        missing: 'Tool kv.nope does not exist: no provider serves it.',
        inherited: 'Tool kv.toString does not exist: no provider serves it.',
      },
      logs: [],
    });
  });

  test('an uncaught tool failure is the program failure, with no code', async () => {
    const client = await connect(setup.server);
    const envelope = await client.execute({
      code: 'async () => kv.get()',
      providers: [{ name: 'kv', fns: { get: () => Promise.reject(new Error('no such key')) } }],
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'no such key',
      logs: [],
      errorKind: 'tool-failed',
      errorName: 'Error',
      errorProvider: 'kv',
      errorTool: 'get',
      errorAt: 'executor.js:1:16',
    });
  });

  test('proxied fetch is performed by the client, a standard Response or the wire shape, and can fail', async () => {
    const client = await connect(setup.server);
    const requests: unknown[] = [];
    const envelope = await client.execute({
      code: `async () => {
        const one = await fetch('https://api.test/a', { method: 'POST', body: 'ping', headers: { 'x-k': 'v' } });
        const two = await fetch('https://api.test/wire');
        const three = await fetch('https://api.test/fail').catch((error) => error.name + ': ' + error.message);
        return [one.status, await one.text(), one.headers.get('x-served'), two.status, await two.text(), three];
      }`,
      outbound: async (request) => {
        requests.push({ ...request, body: request.body && new TextDecoder().decode(request.body) });
        if (request.url.endsWith('/fail')) throw new Error('connection refused');
        if (request.url.endsWith('/wire')) {
          return { status: 201, statusText: 'Created', headers: [], body: new TextEncoder().encode('wire') };
        }
        return new Response('pong', { status: 202, headers: { 'x-served': 'client' } });
      },
    });
    expect(envelope).toStrictEqual({
      result: [202, 'pong', 'client', 201, 'wire', 'TypeError: connection refused'],
      logs: [],
    });
    expect(requests[0]).toMatchObject({
      method: 'POST',
      url: 'https://api.test/a',
      headers: expect.arrayContaining([['x-k', 'v']]),
      body: 'ping',
    });
  });

  test('outbound is disabled without a mode, and native is refused unless the server enables it', async () => {
    const client = await connect(setup.server);
    expect(
      await client.execute({ code: `async () => fetch('https://x.test/').catch((error) => error.message)` }),
    ).toStrictEqual({
      result: 'Outbound network access is disabled for this execution, so fetch cannot reach the network.',
      logs: [],
    });
    expect(await client.execute({ code: 'async () => 1', outbound: undefined })).toStrictEqual({
      result: undefined,
      error: NATIVE_OUTBOUND_REFUSED_MESSAGE,
      code: 'BAD_REQUEST',
      logs: [],
    });
  });

  test('a bad request comes back as a BAD_REQUEST envelope naming the field, from the client or the executor', async () => {
    const client = await connect(setup.server);
    expect(await client.execute({ code: 'async () => 1', timeout: 0 })).toStrictEqual({
      result: undefined,
      error: 'Invalid execute request: timeout must be at least 1 ms.',
      code: 'BAD_REQUEST',
      logs: [],
    });
    const envelope = await client.execute({ code: 'async () => 1', providers: [{ name: 'console' }] });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Provider name "console" is reserved: it would hide the global console that programs rely on.',
      code: 'BAD_REQUEST',
      logs: [],
    });
  });

  test('a request past PAYLOAD_LIMIT in bytes, though not in characters, is refused by the client', async () => {
    const client = await connect(setup.server);
    // Two bytes of UTF-8 per character: what the server measures, so the client measures it too.
    // Three module sources (each within MODULE_SOURCE_LIMIT) carry the text; code has a limit of its own.
    const source = `export default "${'é'.repeat(PAYLOAD_LIMIT / 6)}"`;
    const envelope = await client.execute({
      code: 'async () => 1',
      modules: { 'a.js': source, 'b.js': source, 'c.js': source },
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: expect.stringMatching(
        /^The execute message is \d+ bytes, past the 33554432-byte payload limit\.$/,
      ),
      code: 'PAYLOAD_TOO_LARGE',
      logs: [],
    });
    const bytes = Number(/is (\d+) bytes/.exec(envelope.error as string)?.[1]);
    expect(bytes).toBeGreaterThan(PAYLOAD_LIMIT);
    expect(await client.execute({ code: 'async () => "still open"' })).toStrictEqual({
      result: 'still open',
      logs: [],
    });
  });

  test('retained handles are invoked and closed over the same connection', async () => {
    const client = await connect(setup.server);
    const envelope = await client.execute({
      code: `async () => {
        let hits = 0;
        return { async fetch(request) { hits++; return new Response('hit ' + hits + ' ' + (await request.text()), { status: 201 }) } };
      }`,
      retainHandles: true,
    });
    expect(envelope).toStrictEqual({ result: undefined, logs: [], executionId: expect.any(String) });
    const id = envelope.executionId as string;
    const first = (await client.invoke(
      id,
      new Request('https://h.test/', { method: 'POST', body: 'one' }),
    )) as Response;
    expect([first.status, await first.text()]).toStrictEqual([201, 'hit 1 one']);
    const second = (await client.invoke(id, new Request('https://h.test/'))) as Response;
    expect(await second.text()).toBe('hit 2 ');
    await expect(client.invoke(id, new Request('https://h.test/'), 'scheduled')).rejects.toMatchObject({
      code: 'HANDLE_NOT_FOUND',
    });
    await client.closeHandles(id);
    await expect(client.invoke(id, new Request('https://h.test/'))).rejects.toMatchObject({
      name: 'CodemodeError',
      code: 'HANDLES_CLOSED',
      message: `Execution ${id} holds no handles: they were closed, expired, or never granted.`,
    });
    await expect(client.closeHandles(id)).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  });

  test('cancel ends a running execution with CANCELLED', async () => {
    const client = await connect(setup.server);
    const controller = new AbortController();
    const called = deferred();
    const pending = client.execute(
      {
        code: 'async () => { await slow.wait(); return "finished" }',
        providers: [
          {
            name: 'slow',
            fns: {
              wait: () => {
                called.resolve();
                return new Promise(() => {});
              },
            },
          },
        ],
      },
      { signal: controller.signal },
    );
    await called.promise;
    controller.abort();
    expect(await pending).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: its client cancelled it',
      code: 'CANCELLED',
      logs: [],
    });
    await expectPoolClean(setup.server);
  });

  test("an abort with an Error carries its message, as IsolateExecutor's cancel does, cut as a repeated reason is", async () => {
    const client = await connect(setup.server);
    for (const [reason, error] of [
      ['user pressed stop', 'Execution was cancelled: user pressed stop'],
      [
        'x'.repeat(REASON_ECHO_LIMIT + 1),
        `Execution was cancelled: ${'x'.repeat(REASON_ECHO_LIMIT)}… (${REASON_ECHO_LIMIT + 1} characters)`,
      ],
    ]) {
      const controller = new AbortController();
      const called = deferred();
      const pending = client.execute(
        {
          code: 'async () => slow.wait()',
          providers: [
            {
              name: 'slow',
              fns: {
                wait: () => {
                  called.resolve();
                  return new Promise(() => {});
                },
              },
            },
          ],
        },
        { signal: controller.signal },
      );
      await called.promise;
      controller.abort(new Error(reason));
      expect(await pending).toStrictEqual({ result: undefined, error, code: 'CANCELLED', logs: [] });
    }
    // A signal aborted before the execute never reaches the server, and its reason is told the same way.
    expect(
      await client.execute({ code: 'async () => 1' }, { signal: AbortSignal.abort(new Error('too late')) }),
    ).toStrictEqual({
      result: undefined,
      error: 'Execution was cancelled: too late',
      code: 'CANCELLED',
      logs: [],
    });
    await expectPoolClean(setup.server);
  });

  test('a tool call the client never answers fails after the deadline, the execution timeout by default', async () => {
    const client = await connect(setup.server);
    const envelope = await client.execute({
      code: `async () => hang.forever().catch((error) => 'caught: ' + error.message)`,
      timeout: 300,
      providers: [{ name: 'hang', fns: { forever: () => new Promise(() => {}) } }],
    });
    expect(envelope).toStrictEqual({
      result: `caught: ${dispatchUnansweredMessage('hang', 'forever', 300)}`,
      logs: [],
    });
  });
});

describe('one connection', () => {
  test('multiplexes 50 concurrent executions, each with its own tool calls', async () => {
    const client = await connect(setup.server);
    const envelopes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        client.execute({
          code: `async () => (await id.twice(${index})) + (await id.twice(1))`,
          providers: [{ name: 'id', fns: { twice: async (value: number) => value * 2 } }],
        }),
      ),
    );
    expect(envelopes).toStrictEqual(
      Array.from({ length: 50 }, (_, index) => ({ result: index * 2 + 2, logs: [] })),
    );
  });

  test(`holds at most ${CAP} executions in flight; the next is OVERLOADED at once, and the rest still finish`, async () => {
    const client = await connect(setup.server);
    const release = deferred();
    const hold = {
      code: 'async () => gate.wait()',
      providers: [{ name: 'gate', fns: { wait: () => release.promise.then(() => 'released') } }],
    };
    const held = Array.from({ length: CAP }, () => client.execute(hold));
    expect(await client.execute({ code: 'async () => 1' })).toStrictEqual({
      result: undefined,
      error: connectionCapMessage(CAP),
      code: 'OVERLOADED',
      logs: [],
    });
    release.resolve();
    const envelopes = await Promise.all(held);
    expect(envelopes.every((envelope) => envelope.result === 'released')).toBe(true);
    await expectPoolClean(setup.server);
  });
});
