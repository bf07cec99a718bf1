/** Retained handles: the grant, the plant defenses, invocations and every row of the invocation table. */
import { executionTimeoutMessage, memoryLimitMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { assertResponseWireShape, timerWorkClosedMessage } from '../../src/sandbox/handles.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const get = (path: string) => ({
  method: 'GET',
  url: `https://handler.example${path}`,
  headers: [] as [string, string][],
  body: null,
});
const text = (body: Uint8Array | null) => new TextDecoder().decode(body ?? new Uint8Array());

describe('the grant', () => {
  test('a fetch handler object is retained; the envelope carries only the executionId', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      code: `async () => { let hits = 0; return { async fetch(request) { hits++; return new Response('hit ' + hits + ' ' + new URL(request.url).pathname, { headers: { 'x-hits': String(hits) } }) } } }`,
    });
    expect(envelope).toStrictEqual({ result: undefined, logs: [], executionId: expect.any(String) });
    const first = await sandbox.invoke(envelope.executionId as string, get('/a'));
    const second = await sandbox.invoke(envelope.executionId as string, get('/b'));
    expect([first.status, text(first.body), text(second.body), second.headers]).toStrictEqual([
      200,
      'hit 1 /a',
      'hit 2 /b',
      [
        ['x-hits', '2'],
        ['content-type', 'text/plain;charset=UTF-8'],
      ],
    ]);
    expect(sandbox.closeHandles(envelope.executionId as string)).toBe(true);
    await expect(sandbox.invoke(envelope.executionId as string, get('/c'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });

  test('a bare function is a handler; any other result reports as usual and retains nothing', async () => {
    const bare = await sandbox.execute({
      retainHandles: true,
      code: `async () => (request) => new Response(request.method)`,
    });
    expect(text((await sandbox.invoke(bare.executionId as string, get('/'))).body)).toBe('GET');
    sandbox.closeHandles(bare.executionId as string);
    const plain = await sandbox.execute({ retainHandles: true, code: `async () => ({ not: 'a handler' })` });
    expect(plain).toStrictEqual({ result: { not: 'a handler' }, logs: [] });
  });

  test('a planted invoker does not pass for a grant; one that cannot be deleted fails the run', async () => {
    const planted = await sandbox.execute({
      retainHandles: true,
      code: `async () => { globalThis.__invokeHandle = () => 'mine'; return 42 }`,
    });
    expect(planted).toStrictEqual({ result: 42, logs: [] });
    const stuck = await sandbox.execute({
      retainHandles: true,
      code: `async () => { Object.defineProperty(globalThis, '__invokeHandle', { value: () => 'mine' }); return 42 }`,
    });
    expect(stuck.error).toMatch(/Cannot delete property '__invokeHandle'/);
    expect(stuck.executionId).toBeUndefined();
  });
});

describe('the invocation table', () => {
  test('a throw from the handler comes back as its message and the execution survives', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      code: `async () => ({ fetch: (request) => { if (request.url.endsWith('/boom')) throw new Error('handler failed'); return new Response('fine') } })`,
    });
    const id = envelope.executionId as string;
    await expect(sandbox.invoke(id, get('/boom'))).rejects.toThrow('handler failed');
    expect(text((await sandbox.invoke(id, get('/ok'))).body)).toBe('fine');
    sandbox.closeHandles(id);
  });

  test("an answer that is not a Response is refused inside the isolate, with workerd's text", async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      code: `async () => ({ fetch: () => ({ status: 200 }) })`,
    });
    await expect(sandbox.invoke(envelope.executionId as string, get('/'))).rejects.toThrow(
      "Incorrect type for Promise: the Promise did not resolve to 'Response'.",
    );
    sandbox.closeHandles(envelope.executionId as string);
  });

  test('the clock expiring on a parked invocation is a timeout and disposes the execution', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      timeout: 150,
      code: `async () => ({ fetch: () => new Promise(() => {}) })`,
    });
    await expect(sandbox.invoke(envelope.executionId as string, get('/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: executionTimeoutMessage(150),
    });
    await expect(sandbox.invoke(envelope.executionId as string, get('/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
    });
  });

  test('a spinning invocation is ended by the engine timeout, rewritten', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      timeout: 100,
      grace: 50,
      code: `async () => ({ fetch: () => { for (;;) {} } })`,
    });
    await expect(sandbox.invoke(envelope.executionId as string, get('/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(sandbox.retainedCount).toBe(0);
  });

  test('an invocation that exhausts memory is a memory error and disposes the execution', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      memoryLimit: 32,
      code: `async () => ({ fetch: () => { const keep = []; for (;;) keep.push(new Array(100000).fill({ a: 1 })) } })`,
    });
    await expect(sandbox.invoke(envelope.executionId as string, get('/'))).rejects.toMatchObject({
      code: 'MEMORY_LIMIT',
      message: memoryLimitMessage(32),
    });
  });

  test('a closeHandles that arrives while an invocation waits its turn ends it with HANDLES_CLOSED', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      code: `async () => ({ fetch: () => new Promise((resolve) => setTimeout(() => resolve(new Response('late')), 50)) })`,
    });
    const id = envelope.executionId as string;
    const first = sandbox.invoke(id, get('/1'));
    const second = sandbox.invoke(id, get('/2'));
    sandbox.closeHandles(id);
    await expect(second).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
    await first.catch(() => undefined);
  });

  test('a handle other than fetch is not found; invocations run one at a time in order', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      code: `async () => { const order = []; return { fetch: async (request) => { const n = new URL(request.url).pathname; order.push('start ' + n); await new Promise((r) => setTimeout(r, 5)); order.push('end ' + n); return new Response(order.join(',')) } } }`,
    });
    const id = envelope.executionId as string;
    await expect(sandbox.invoke(id, get('/'), 'scheduled')).rejects.toMatchObject({
      code: 'HANDLE_NOT_FOUND',
    });
    const [, second] = await Promise.all([sandbox.invoke(id, get('/a')), sandbox.invoke(id, get('/b'))]);
    expect(text(second.body)).toBe('start /a,end /a,start /b,end /b');
    sandbox.closeHandles(id);
  });

  test('tool calls work during an invocation and are refused between them', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      providers: [{ name: 'tools' }],
      dispatch: async () => JSON.stringify({ result: 'tool answer' }),
      code: `async () => ({ fetch: async () => new Response(await tools.ask()) })`,
    });
    expect(text((await sandbox.invoke(envelope.executionId as string, get('/'))).body)).toBe('tool answer');
    sandbox.closeHandles(envelope.executionId as string);
  });
});

/**
 * Runs `request` retaining handles until it is granted, at most five times. A run whose grant lost
 * the race against the program's own timer work must read exactly `raced` (and holds nothing);
 * anything else fails the test.
 */
async function grantDespiteRace(
  request: { code: string; timeout?: number; grace?: number; memoryLimit?: number },
  raced: { error: string; code: string },
): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const envelope = await sandbox.execute({ retainHandles: true, ...request });
    if (envelope.executionId !== undefined) {
      expect(envelope).toStrictEqual({ result: undefined, logs: [], executionId: expect.any(String) });
      return envelope.executionId;
    }
    expect(envelope).toStrictEqual({ result: undefined, logs: [], ...raced });
    expect(sandbox.retainedCount).toBe(0);
  }
  throw new Error('five runs in a row lost the grant to their own timer work');
}

/** Polls until `condition` holds: the watcher works on its own interval, so a test waits for it. */
async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('timer work between invocations runs under the execution bound (a deviation, docs/sandbox.md)', () => {
  /**
   * Retains `handler` with `setup` run at grant time, under timeout 200 and grace 100: a 300 ms bound.
   * The host takes the handler on the isolate's thread after the run settled; on a loaded machine a
   * timer of the setup can fire first and keep that thread busy past the bound, and the run then
   * reads TIMEOUT (the race the test above pins down). That reading is checked exactly, and the run
   * tried again, so what follows is timer work after a grant.
   */
  async function retainWith(setup: string, handler = `() => new Response('alive')`): Promise<string> {
    return grantDespiteRace(
      { timeout: 200, grace: 100, code: `async () => { ${setup}; return { fetch: ${handler} } }` },
      { error: executionTimeoutMessage(200), code: 'TIMEOUT' },
    );
  }

  /** The execution was ended by the watcher: the next invoke reads HANDLES_CLOSED saying why. */
  async function expectOutran(id: string): Promise<void> {
    await waitUntil(() => sandbox.retainedCount === 0);
    await expect(sandbox.invoke(id, get('/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
      name: 'HandlesClosedError',
      message: timerWorkClosedMessage(id, 300),
    });
  }

  test('a timer that spins for ever is disposed past timeout + grace, and reads as working meanwhile', async () => {
    const id = await retainWith('setTimeout(() => { for (;;) {} }, 50)');
    await waitUntil(() => sandbox.retainedWorking === 1);
    await expectOutran(id);
    expect(sandbox.retainedWorking).toBe(0);
  });

  test('an interval whose short spins sum past the bound', async () => {
    const id = await retainWith('setInterval(() => { for (let i = 0; i < 5e6; i++); }, 5)');
    await expectOutran(id);
  });

  test('work left running past the return: the grant or TIMEOUT, never a grant silently lost', async () => {
    // The loop starts a few microtask hops after the program's answer reached the host, so the
    // isolate is busy when the host asks it for the handler; before, such a run answered a bare
    // { result: undefined }, as one that returned no handler (every time, on a quiet machine). A
    // preempted isolate thread can still let the host take the handler first: a grant, closed here.
    const readings = new Set<string>();
    for (const hops of [1, 5, 1, 5, 1, 5]) {
      const envelope = await sandbox.execute({
        retainHandles: true,
        timeout: 200,
        grace: 100,
        code: `async () => {
          let n = 0;
          const loop = () => Promise.resolve().then(loop);
          const later = () => (++n < ${hops} ? Promise.resolve().then(later) : loop());
          later();
          return { fetch: () => new Response('never') };
        }`,
      });
      if (envelope.executionId !== undefined) {
        readings.add('granted');
        sandbox.closeHandles(envelope.executionId);
      } else {
        expect(envelope).toStrictEqual({
          result: undefined,
          logs: [],
          error: executionTimeoutMessage(200),
          code: 'TIMEOUT',
        });
        readings.add('TIMEOUT');
      }
    }
    expect(sandbox.retainedCount).toBe(0);
    console.info(`grant race readings: ${[...readings].join(', ')}`);
  });

  test('a microtask loop started from a timer', async () => {
    const id = await retainWith(
      'setTimeout(() => { const loop = () => Promise.resolve().then(loop); loop(); }, 10)',
    );
    await expectOutran(id);
  });

  test('an async loop that never yields to the host, started from a timer', async () => {
    const id = await retainWith('setTimeout(async () => { for (let i = 0; ; i++) await i; }, 10)');
    await expectOutran(id);
  });

  test('a timer that schedules timers, each with a little work', async () => {
    const id = await retainWith(
      'const again = () => { for (let i = 0; i < 3e6; i++); setTimeout(again, 0); setTimeout(again, 1); }; setTimeout(again, 0)',
    );
    await expectOutran(id);
  });

  test('the bound is per stretch between invocations: light timer work survives, invocations see it', async () => {
    const id = await retainWith(
      'let ticks = 0; setInterval(() => { ticks++ }, 5)',
      `() => new Response(String(ticks))`,
    );
    // Past the bound in wall time, far inside it in isolate time.
    let ticks = 0;
    while (ticks < 100) ticks = Number(text((await sandbox.invoke(id, get('/'))).body));
    expect(sandbox.retainedCount).toBe(1);
    expect(sandbox.closeHandles(id)).toBe(true);
  });

  test('a timer spinning while an invocation is in flight: that invocation times out and ends it', async () => {
    const id = await retainWith(
      '',
      `async () => { setTimeout(() => { for (;;) {} }, 0); await new Promise((r) => setTimeout(r, 20)); return new Response('never') }`,
    );
    await expect(sandbox.invoke(id, get('/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: executionTimeoutMessage(200),
    });
    await expect(sandbox.invoke(id, get('/'))).rejects.toMatchObject({ code: 'HANDLES_CLOSED' });
  });

  test('a timer spinning while the invocation waits on a tool: the paused clock still counts it', async () => {
    const envelope = await sandbox.execute({
      retainHandles: true,
      timeout: 200,
      grace: 100,
      providers: [{ name: 'tools' }],
      dispatch: () => new Promise<string>(() => {}),
      code: `async () => ({ fetch: async () => { setTimeout(() => { for (;;) {} }, 0); await tools.wait(); return new Response('never') } })`,
    });
    await expect(sandbox.invoke(envelope.executionId as string, get('/'))).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: executionTimeoutMessage(200),
    });
    expect(sandbox.retainedCount).toBe(0);
  });

  test('the disposed-isolate row: a timer that exhausts memory between invocations reads MEMORY_LIMIT', async () => {
    const id = await grantDespiteRace(
      {
        memoryLimit: 16,
        code: `async () => { setTimeout(() => { const keep = []; for (;;) keep.push(new Array(100000).fill({ a: 1 })) }, 10); return { fetch: () => new Response('x') } }`,
      },
      { error: memoryLimitMessage(16), code: 'MEMORY_LIMIT' },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(sandbox.invoke(id, get('/'))).rejects.toMatchObject({
      code: 'MEMORY_LIMIT',
      message: memoryLimitMessage(16),
    });
    await expect(sandbox.invoke(id, get('/'))).rejects.toMatchObject({
      code: 'HANDLES_CLOSED',
      message: `Execution ${id} holds no handles: they were closed, expired, or never granted.`,
    });
  });

  test('the disposed-isolate row holds after the timer watcher has read the disposed isolate', async () => {
    const id = await grantDespiteRace(
      {
        memoryLimit: 16,
        code: `async () => { setTimeout(() => { const keep = []; for (;;) keep.push(new Array(100000).fill({ a: 1 })) }, 10); return { fetch: () => new Response('x') } }`,
      },
      { error: memoryLimitMessage(16), code: 'MEMORY_LIMIT' },
    );
    // Long enough for the watcher (every 50 ms) to read the disposed isolate's NaN time many times:
    // it once took that for timer work past the bound, and the invoke read HANDLES_CLOSED.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await expect(sandbox.invoke(id, get('/'))).rejects.toMatchObject({
      code: 'MEMORY_LIMIT',
      message: memoryLimitMessage(16),
    });
  });
});

test('assertResponseWireShape validates the handler answer again on the host', async () => {
  await expect(
    assertResponseWireShape({ status: 700, statusText: '', headers: [], body: null }),
  ).rejects.toThrow(/status must be at most 599/);
  expect(
    await assertResponseWireShape({ status: 200, statusText: 'OK', headers: [], body: null }),
  ).toStrictEqual({
    status: 200,
    statusText: 'OK',
    headers: [],
    body: null,
  });
});
