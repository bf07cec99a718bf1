/**
 * Replay fidelity (issue 25): one program that races timers against tools, waits on Promise.all
 * with tool, timer and fetch settlements interleaved, draws random numbers and UUIDs, reads fetch
 * bodies from a loopback server (one of them streamed) and imports modules dynamically, paused at
 * several points and resumed, ends with the result and the logs of the same program run straight
 * through: in one process on the Sandbox, and through IsolateExecutor's pool with native fetch and
 * with the outbound function. The server counts each request by the run's tag, which a tool hands
 * the program, and answers with the count: a resume that sent a journaled request again would read
 * another body, and the count would show it. Which racer wins is left to the real clock of the
 * paused run, so the winners are compared with what the resumed run observed, not with another run.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { Durability, type DurableExecuteResult } from '../../src/durable/durability.ts';
import { FETCH_BODY_JOURNAL_LIMIT } from '../../src/durable/fetch-journal.ts';
import type { FetchEntry } from '../../src/durable/journal.ts';
import { DurableKeyRing } from '../../src/durable/keys.ts';
import { pause } from '../../src/durable/pause.ts';
import { DurableTokens } from '../../src/durable/token.ts';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecuteRequest } from '../../src/executor/request.ts';
import type { OutboundFunction } from '../../src/pool/execution.ts';
import type { SandboxExecuteRequest } from '../../src/sandbox/sandbox.ts';
import { useSandbox, withTools } from '../helpers.ts';
import { resumeEachPause } from './resume-each-pause.ts';

vi.setConfig({ testTimeout: 60_000 });

const keys = new DurableKeyRing({ keys: [{ id: 'k1', key: randomBytes(32) }] });
const seed = () => [11, 22, 33, 44] as const;

/** Bytes of a `/big` body: two of them pass what one journal may hold. */
const BIG = Math.ceil(FETCH_BODY_JOURNAL_LIMIT / 2) + 1024;

/** Requests by path and tag; `/hang` never answers. */
const hits = new Map<string, number>();
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const key = `${url.pathname} ${url.searchParams.get('tag')}`;
    const count = (hits.get(key) ?? 0) + 1;
    hits.set(key, count);
    if (url.pathname === '/hang') return;
    if (url.pathname === '/big') {
      response.end(Buffer.alloc(BIG, 120));
      return;
    }
    if (url.pathname === '/stream') {
      // Written in pieces, with a delay between them: the runtime reads the body whole all the same.
      response.writeHead(200, { 'x-count': String(count) });
      response.write('a'.repeat(1000));
      setTimeout(() => response.end('b'.repeat(500 * count)), 5);
      return;
    }
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-count': String(count) });
      response.end(JSON.stringify({ path: url.pathname, count, method: request.method, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const MODULES = {
  'lib.js': 'export const scale = (x) => x * 2;',
  'more.js': 'export const value = 7;',
};

/** The program: `winners` holds what the races decided, `events` everything else, each also logged. */
const program = () => `async () => {
  const events = [];
  const winners = [];
  const note = (text) => { events.push(text); console.log(text); };
  const sleep = (ms, tag) => new Promise((resolve) => setTimeout(() => resolve(tag), ms));
  const tag = await api.tag();
  const q = '?tag=' + tag;
  note('random ' + Math.random() + ' ' + crypto.randomUUID());
  const lib = await import('./lib.js');
  winners.push(await Promise.race([sleep(1, 'timer'), api.get(1)]));
  const [page, two, slept] = await Promise.all([
    fetch('${base}/page' + q).then((r) => r.json()),
    api.get(2, Date.now()),
    sleep(0, 'slept'),
  ]);
  note('page ' + JSON.stringify(page) + ' ' + two + ' ' + slept);
  note('approved ' + await api.approve(1, performance.now()));
  const [posted, three] = await Promise.all([
    fetch('${base}/post' + q, { method: 'POST', body: JSON.stringify({ x: lib.scale(3), r: Math.random() }) }).then((r) => r.json()),
    api.get(3, [...crypto.getRandomValues(new Uint8Array(4))]),
  ]);
  note('posted ' + posted.count + ' ' + posted.body + ' ' + three);
  winners.push(await Promise.race([fetch('${base}/race' + q).then(() => 'fetch'), sleep(1, 'timer')]));
  const more = await import('./more.js');
  note('approved ' + await api.approve(2, more.value, Date.now()));
  const streamed = await fetch('${base}/stream' + q);
  const reader = streamed.body.getReader();
  let length = 0;
  for (;;) { const { done, value } = await reader.read(); if (done) break; length += value.length; }
  note('stream ' + length + ' ' + streamed.headers.get('x-count'));
  note('approved ' + await api.approve(3, Math.random(), crypto.randomUUID()));
  return { events, winners, last: crypto.randomUUID() };
}`;

/** The tools: `tag` names the run for the server, `approve` pauses while its step is closed. */
function fns(tag: string, closed: Set<number>) {
  return {
    tag: async () => tag,
    get: async (x: number) => {
      for (let turn = 0; turn < x; turn++) await new Promise((resolve) => setImmediate(resolve));
      return x * 10;
    },
    approve: async (step: number) => {
      if (closed.has(step)) pause({ step }, { reason: 'approval' });
      return `ok ${step}`;
    },
  };
}

/** How each door runs a durable request and resumes a token. */
interface Door {
  execute(tag: string, closed: Set<number>): Promise<DurableExecuteResult>;
  resume(
    token: string,
    answers: Map<number, { perform: true }>,
    tag: string,
    closed: Set<number>,
  ): Promise<DurableExecuteResult>;
}

const sandbox = useSandbox({ durable: { keys, unsafeSeed: seed } });
/** A durable request of the sandbox's door, performing fetch natively: the fidelity program, or `fields`. */
const sandboxRequest = (
  tag: string,
  closed: Set<number>,
  fields: Partial<SandboxExecuteRequest> = { code: program(), modules: MODULES },
) =>
  withTools({ api: fns(tag, closed) }, {
    ...fields,
    durable: true,
    outbound: undefined,
    allowLoopback: true,
  } as SandboxExecuteRequest) as SandboxExecuteRequest & { durable: true };

const native = new IsolateExecutor({ poolSize: 1, allowLoopback: true, durable: { keys, unsafeSeed: seed } });
const proxied = new IsolateExecutor({ poolSize: 1, durable: { keys, unsafeSeed: seed } });
afterAll(() => Promise.all([native.dispose(), proxied.dispose()]));

/** The outbound function: performs the request with this process's fetch, as a caller's proxy would. */
const forward: OutboundFunction = async (request, { signal }) => {
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal,
  });
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
    body: new Uint8Array(await response.arrayBuffer()),
  };
};

function poolRequest(tag: string, closed: Set<number>, outbound: OutboundFunction | undefined) {
  return {
    code: program(),
    modules: MODULES,
    durable: true as const,
    outbound,
    providers: [{ name: 'api', fns: fns(tag, closed) }],
  } satisfies IsolateExecuteRequest;
}

const doors: Record<string, Door> = {
  'the Sandbox, native fetch': {
    execute: (tag, closed) => sandbox.execute(sandboxRequest(tag, closed)),
    resume: (token, answers, tag, closed) => sandbox.resume(token, answers, sandboxRequest(tag, closed)),
  },
  "IsolateExecutor's pool, native fetch": {
    execute: (tag, closed) => native.execute(poolRequest(tag, closed, undefined)),
    resume: (token, answers, tag, closed) =>
      native.resume(token, answers, poolRequest(tag, closed, undefined)),
  },
  "IsolateExecutor's pool, the outbound function": {
    execute: (tag, closed) => proxied.execute(poolRequest(tag, closed, forward)),
    resume: (token, answers, tag, closed) =>
      proxied.resume(token, answers, poolRequest(tag, closed, forward)),
  },
};

let runs = 0;

/** Runs the program pausing at each step of `pauses`, resuming by performing the pending calls. */
async function runPausing(door: Door, pauses: number[]) {
  const tag = `run${++runs}`;
  const closed = new Set(pauses);
  const { envelope, logs, pausedAt } = await resumeEachPause(
    await door.execute(tag, closed),
    closed,
    (token, answers) => door.resume(token, answers, tag, closed),
  );
  const requests = [...hits]
    .filter(([key]) => key.endsWith(` ${tag}`))
    .map(([key, count]) => [key.split(' ')[0], count]);
  return { envelope, logs, pausedAt, requests };
}

for (const [name, door] of Object.entries(doors)) {
  describe(`replay fidelity through ${name}`, () => {
    test('paused at several points and resumed, the run ends as the run straight through did', async () => {
      const straight = await runPausing(door, []);
      expect(straight.envelope.error).toBeUndefined();
      const result = straight.envelope.result as { events: string[]; winners: string[]; last: string };
      expect(straight.logs.map((line) => line.text)).toStrictEqual(result.events);
      expect(result.events).toContain('stream 1500 1');
      // Each request went out once.
      expect(straight.requests).toStrictEqual([
        ['/page', 1],
        ['/post', 1],
        ['/race', 1],
        ['/stream', 1],
      ]);
      for (const pauses of [[1], [2], [3], [1, 3], [1, 2, 3]]) {
        const paused = await runPausing(door, pauses);
        expect(paused.envelope.error, `pausing at ${pauses}`).toBeUndefined();
        expect(paused.pausedAt).toStrictEqual(pauses.map((step) => ({ step })));
        const resumed = paused.envelope.result as typeof result;
        // The same values, times, bodies and logs; only the races may have gone the other way.
        expect({ ...resumed, winners: [] }).toStrictEqual({ ...result, winners: [] });
        expect(paused.logs).toStrictEqual(straight.logs);
        // A resume never sent a journaled request again: each went out once, and was read from the journal after.
        expect(paused.requests, `pausing at ${pauses}`).toStrictEqual(straight.requests);
      }
    });
  });
}

describe('fetch in the journal', () => {
  test('a fetch still in flight when the run pauses is journaled as a lost connection and never sent again', async () => {
    const tag = `run${++runs}`;
    const code = `async () => {
      const slow = fetch('${base}/hang?tag=${tag}').then(() => 'answered', (error) => error.name + ': ' + error.message);
      await api.approve(1);
      return await slow;
    }`;
    const request = (closed: Set<number>) => sandboxRequest(tag, closed, { code });
    const first = await sandbox.execute(request(new Set([1])));
    expect(first.paused?.pending.map((call) => call.tool)).toStrictEqual(['approve']);
    const resumed = await sandbox.resume(first.paused?.token, { 1: { result: 'yes' } }, request(new Set()));
    expect(resumed.error).toBeUndefined();
    expect(resumed.result).toBe('Error: Network connection lost.');
    expect(hits.get(`/hang ${tag}`)).toBe(1);
  });

  test('a run whose fetch bodies pass what a journal holds runs on, and its pause is TOKEN_TOO_LARGE', async () => {
    const tag = `run${++runs}`;
    const code = `async () => {
      let length = 0;
      for (const n of [1, 2]) length += (await (await fetch('${base}/big?tag=${tag}&n=' + n)).arrayBuffer()).byteLength;
      console.log('read ' + length);
      return await api.approve(1);
    }`;
    const request = (closed: Set<number>) => sandboxRequest(tag, closed, { code, memoryLimit: 256 });
    const straight = await sandbox.execute(request(new Set()));
    expect(straight.error).toBeUndefined();
    expect(straight.result).toBe('ok 1');
    const paused = await sandbox.execute(request(new Set([1])));
    expect(paused.paused).toBeUndefined();
    expect(paused.code).toBe('TOKEN_TOO_LARGE');
    expect(paused.error).toMatch(/fetch requests read more than \d+ bytes of response bodies/);
    expect(paused.logs.map((line) => line.text)).toStrictEqual([`read ${2 * BIG}`]);
  });

  test('a resume whose request differs from the journal ends as REPLAY_DIVERGED before it reaches the server', async () => {
    const tag = `run${++runs}`;
    const code = `async () => {
      const first = await fetch('${base}/page?tag=${tag}').then((r) => r.json());
      await api.approve(1);
      return first.count;
    }`;
    const wire = withTools({ api: fns(tag, new Set([1])) }, {
      code,
      durable: true,
      outbound: undefined,
      allowLoopback: true,
    } as SandboxExecuteRequest) as SandboxExecuteRequest & { durable: true };
    const first = await sandbox.execute(wire);
    expect(hits.get(`/page ${tag}`)).toBe(1);
    // The same journal, with the request's hash changed, sealed with the same key.
    const binding = new Durability({ keys }).binding({ ...wire, outbound: 'native' }, undefined);
    const tokens = new DurableTokens({ keys });
    const opened = await tokens.open(first.paused?.token, binding);
    const state = opened.contents.state as { fetches: FetchEntry[] };
    expect(state.fetches).toHaveLength(1);
    const edited = tokens.seal(
      {
        journal: opened.contents.journal,
        state: { ...state, fetches: [{ ...state.fetches[0], request: 'another request' }] },
        ...(opened.contents.bytes ? { bytes: opened.contents.bytes } : {}),
      },
      binding,
    ).token;
    const again = withTools({ api: fns(tag, new Set()) }, {
      code,
      durable: true,
      outbound: undefined,
      allowLoopback: true,
    } as SandboxExecuteRequest);
    const diverged = await sandbox.resume(edited, { 1: { result: 'yes' } }, again);
    expect(diverged.code).toBe('REPLAY_DIVERGED');
    expect(diverged.error).toMatch(/^Replay diverged: fetch request 1 /);
    const resumed = await sandbox.resume(first.paused?.token, { 1: { result: 'yes' } }, again);
    expect(resumed.result).toBe(1);
    expect(hits.get(`/page ${tag}`)).toBe(1);
  });
});
