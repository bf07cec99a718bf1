/**
 * The kinds of execution a soak or a chaos run mixes, each built around a token only that
 * execution knows and checked against the envelope it came back with: a result, an error text or
 * a log line must carry the token, and the code must be the one the kind ends in. An envelope
 * that carries another execution's token is misattributed; one that never comes is lost.
 */

import type { ExecuteResult, IsolateExecutor } from '@supolka/codemode-executor';
import type { HttpRequest, HttpResponse } from '@supolka/codemode-protocol';

export type KindName =
  | 'trivial'
  | 'compute'
  | 'tools'
  | 'toolError'
  | 'fetch'
  | 'throw'
  | 'timeout'
  | 'spin'
  | 'memory'
  | 'retained';

/** What one execution's caller saw: the envelope's code (`result` and `error` when user code ended it) and whether its token checked. */
export interface Outcome {
  readonly kind: KindName;
  readonly token: string;
  readonly outcome: string;
  /** Why the envelope is not what the kind ends in, or undefined when it is. */
  readonly wrong: string | undefined;
  readonly envelope: ExecuteResult;
}

export interface MixContext {
  readonly executor: Pick<IsolateExecutor, 'execute' | 'invoke' | 'closeHandles'>;
  /** Where proxied fetches go: the loopback echo server's origin. */
  readonly origin: string;
}

/** The run bound of the kinds that time out, in ms: short, so they cost little. */
export const SHORT_TIMEOUT = 50;
/** The memory limit of the kind that runs out of it, in MB. */
export const SMALL_MEMORY = 16;

const tools = [
  {
    name: 'tools',
    fns: {
      echo: (value: unknown) => value,
      fail: (token: unknown) => {
        throw new Error(`tool failed for ${String(token)}`);
      },
    },
  },
];

/** The caller's half of a proxied fetch: a real request to the loopback server, answered whole. */
export async function proxyToLoopback(
  request: HttpRequest,
  init: { signal: AbortSignal },
): Promise<HttpResponse> {
  const response = await fetch(request.url, { method: request.method, signal: init.signal });
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

type Check = (envelope: ExecuteResult, token: string) => string | undefined;

const resultIs =
  (expected: (token: string) => unknown): Check =>
  (envelope, token) => {
    if (envelope.code !== undefined || envelope.error !== undefined)
      return `expected a result, got ${envelope.code ?? 'an error'}: ${envelope.error}`;
    const want = JSON.stringify(expected(token));
    const got = JSON.stringify(envelope.result);
    return got === want ? undefined : `expected the result ${want}, got ${got}`;
  };

const errorIs =
  (expected: (token: string) => string): Check =>
  (envelope, token) => {
    if (envelope.code !== undefined)
      return `expected the program's own error, got ${envelope.code}: ${envelope.error}`;
    return envelope.error === expected(token)
      ? undefined
      : `expected the error ${JSON.stringify(expected(token))}, got ${JSON.stringify(envelope.error)}`;
  };

/**
 * An execution the executor ended: the code, and the token in the log line the run wrote first.
 * A run whose bound passed before its first statement logged nothing (a loaded machine can spend
 * the 50 ms before it); that envelope is still its own, and the soak counts how many there were.
 */
const endedWith =
  (code: string): Check =>
  (envelope, token) => {
    if (envelope.code !== code)
      return `expected ${code}, got ${envelope.code ?? 'no code'}: ${envelope.error}`;
    const logged = envelope.logs[0]?.text;
    return logged === token || envelope.logs.length === 0
      ? undefined
      : `expected the log line ${token}, got ${JSON.stringify(logged)}`;
  };

interface Kind {
  readonly name: KindName;
  run(context: MixContext, token: string): Promise<ExecuteResult>;
  readonly check: Check;
}

const execute = (context: MixContext, code: string, extra: Record<string, unknown> = {}) =>
  context.executor.execute({ code, providers: tools, ...extra });

export const KINDS: Readonly<Record<KindName, Kind>> = {
  trivial: {
    name: 'trivial',
    run: (context, token) => execute(context, `async () => ${JSON.stringify(token)}`),
    check: resultIs((token) => token),
  },
  compute: {
    name: 'compute',
    run: (context, token) =>
      execute(
        context,
        `async () => { let sum = 0; for (let i = 0; i < 200000; i++) sum = (sum + i * i) % 1000003; return [${JSON.stringify(token)}, sum] }`,
      ),
    check: resultIs((token) => [token, computeSum()]),
  },
  tools: {
    name: 'tools',
    run: (context, token) =>
      execute(
        context,
        `async () => { let last; for (let i = 0; i < 5; i++) last = await tools.echo(${JSON.stringify(token)} + i); return last }`,
      ),
    check: resultIs((token) => `${token}4`),
  },
  toolError: {
    name: 'toolError',
    run: (context, token) => execute(context, `async () => tools.fail(${JSON.stringify(token)})`),
    check: errorIs((token) => `tool failed for ${token}`),
  },
  fetch: {
    name: 'fetch',
    run: (context, token) =>
      execute(
        context,
        `async () => (await fetch(${JSON.stringify(`${context.origin}/echo?${token}`)})).text()`,
        { outbound: proxyToLoopback },
      ),
    check: resultIs((token) => `/echo?${token}`),
  },
  throw: {
    name: 'throw',
    run: (context, token) =>
      execute(context, `async () => { throw new RangeError(${JSON.stringify(token)}) }`),
    check: errorIs((token) => token),
  },
  timeout: {
    name: 'timeout',
    run: (context, token) =>
      execute(context, `async () => { console.log(${JSON.stringify(token)}); await new Promise(() => {}) }`, {
        timeout: SHORT_TIMEOUT,
      }),
    check: endedWith('TIMEOUT'),
  },
  spin: {
    name: 'spin',
    run: (context, token) =>
      execute(context, `async () => { console.log(${JSON.stringify(token)}); for (;;) {} }`, {
        timeout: SHORT_TIMEOUT,
      }),
    check: endedWith('TIMEOUT'),
  },
  memory: {
    name: 'memory',
    run: (context, token) =>
      execute(
        context,
        `async () => { console.log(${JSON.stringify(token)}); const held = []; for (;;) held.push(new Array(100000).fill(held.length)) }`,
        { memoryLimit: SMALL_MEMORY },
      ),
    check: endedWith('MEMORY_LIMIT'),
  },
  retained: {
    name: 'retained',
    run: (context, token) => runRetained(context, token),
    check: resultIs((token) => ['retained', token]),
  },
};

/**
 * Opens a retained execution, invokes it twice, closes it, and checks that an invocation after
 * the close is refused HANDLES_CLOSED. Its outcome reads as a result of `['retained', token]`
 * when all of that held, and as the envelope or the rejection that broke it otherwise.
 */
async function runRetained(context: MixContext, token: string): Promise<ExecuteResult> {
  const envelope = await context.executor.execute({
    retainHandles: true,
    code: `async () => ({ fetch: (request) => new Response(${JSON.stringify(token)} + new URL(request.url).pathname) })`,
  });
  const { executionId } = envelope;
  if (executionId === undefined) return envelope;
  try {
    for (const path of ['/a', '/b']) {
      const body = await (
        await context.executor.invoke(executionId, new Request(`https://soak.test${path}`))
      ).text();
      if (body !== token + path) return { result: undefined, error: `invoke answered ${body}`, logs: [] };
    }
    await context.executor.closeHandles(executionId);
    const closed = await context.executor.invoke(executionId, new Request('https://soak.test/c')).then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
    if (closed !== 'HANDLES_CLOSED')
      return { result: undefined, error: `an invoke after closeHandles read ${closed}`, logs: [] };
    return { result: ['retained', token], logs: [] };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return {
      result: undefined,
      error: `retained: ${message}`,
      ...(code ? { code } : {}),
      logs: [],
    } as ExecuteResult;
  }
}

let sum: number | undefined;
function computeSum(): number {
  if (sum === undefined) {
    sum = 0;
    for (let i = 0; i < 200000; i++) sum = (sum + i * i) % 1000003;
  }
  return sum;
}

/** A soak's mix: common kinds often, the costly ones (a spin runs to its bound + grace) rarely. */
export const SOAK_WEIGHTS: Readonly<Record<KindName, number>> = {
  trivial: 6,
  compute: 3,
  tools: 4,
  toolError: 2,
  fetch: 3,
  throw: 2,
  timeout: 2,
  spin: 1,
  memory: 1,
  retained: 2,
};

/** Kind names in proportion to their weights, shuffled by `random`, repeated as long as needed. */
export function schedule(weights: Readonly<Partial<Record<KindName, number>>>, random: () => number) {
  const deck = Object.entries(weights).flatMap(([name, weight]) =>
    Array<KindName>(weight ?? 0).fill(name as KindName),
  );
  return (index: number): KindName => {
    if (index % deck.length === 0) {
      for (let i = deck.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [deck[i], deck[j]] = [deck[j] as KindName, deck[i] as KindName];
      }
    }
    return deck[index % deck.length] as KindName;
  };
}

/** Runs one execution of `kind` and reads its outcome. */
export async function runKind(context: MixContext, kind: KindName, token: string): Promise<Outcome> {
  const { run, check } = KINDS[kind];
  const envelope = await run(context, token);
  return {
    kind,
    token,
    outcome: envelope.code ?? (envelope.error === undefined ? 'result' : 'error'),
    wrong: check(envelope, token),
    envelope,
  };
}

/** A seeded generator (mulberry32), so a run can be repeated from the seed it printed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
