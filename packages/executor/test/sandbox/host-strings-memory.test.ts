/**
 * Texts a program sends the host at the rate it likes: a tool call's arguments and names, an
 * import()'s specifier, and everything a durable run journals. isolated-vm hands a string of 1 KiB
 * or more to the host as an external string, whose bytes the host's collector does not weigh: a
 * program awaiting call after call with 100 KB arguments had the host hold 5.4 GB after 20 s, none
 * of it seen by any limit (measured on the build machine; 2 GB after 3000 long imports in 5 s). The
 * texts now cross inside a copied array, as the host's own strings, and a durable run's journal
 * lets go of what no token could hold. Each attack runs in a child process of its own, which
 * reports how far its peak resident memory (VmHWM) rose past where it stood after a warm-up run.
 *
 * Each attack sends 300 MB (the durable one 600 MB); BOUND leaves room for the engine, the allocator and the collector's
 * own pace (measured after the change: 10 to 45 MiB), far below what the attacks sent.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PAYLOAD_LIMIT, payloadTooLargeMessage } from '@supolka/codemode-protocol/wire';
import { describe, expect, test } from 'vitest';
import { requestBudgetMessage } from '../../../runtime/src/fetch/fetch.ts';
import { MAX_TOKEN_SIZE } from '../../src/durable/limits.ts';
import { journalPastMostMessage } from '../../src/durable/texts.ts';
import { HANDLER_ANSWER_TOO_LARGE_MESSAGE } from '../../src/sandbox/entry/internal-module.ts';
import { IMPORT_NAMES_MESSAGE } from '../../src/sandbox/modules/loader.ts';

const MiB = 2 ** 20;
const BOUND = 96 * MiB;

const probe = `
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Sandbox } from ${JSON.stringify(fileURLToPath(new URL('../../src/sandbox/sandbox.ts', import.meta.url)))};
import { DurableKeyRing } from ${JSON.stringify(fileURLToPath(new URL('../../src/durable/keys.ts', import.meta.url)))};
import { pause } from ${JSON.stringify(fileURLToPath(new URL('../../src/durable/pause.ts', import.meta.url)))};
const peak = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const keys = new DurableKeyRing({ keys: [{ id: 'k1', key: randomBytes(32) }] });
const sandbox = new Sandbox({ durable: { keys } });
const dispatch = async (provider, tool) => {
  if (tool === 'ask') pause({ question: 'go on?' });
  return '{"result":1}';
};
const request = (code, durable) => ({ code, providers: [{ name: 'api' }], dispatch, timeout: 50000, ...(durable ? { durable: true } : {}) });
await sandbox.execute(request('async () => (await api.x("warm")) + 1'));
const before = peak();
const envelope = await sandbox.execute(request(process.argv[1], process.argv[2] === 'durable'));
const grew = peak() - before;
await sandbox.dispose();
console.log(JSON.stringify({ envelope: { ...envelope, logs: envelope.logs.length }, grew }));
`;

const run = promisify(execFile);

async function attack(
  code: string,
  mode: 'plain' | 'durable' = 'plain',
): Promise<{ envelope: Record<string, unknown>; grew: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', '--input-type=module', '-e', probe, code, mode],
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

/** 3000 rounds of `body`, awaited one after another, with `long` 100,000 characters of `char`. */
const rounds = (body: string, char = 'x') =>
  `async () => { const long = ${JSON.stringify(char)}.repeat(100000); let n = 0; for (let i = 0; i < 3000; i++) { try { ${body} } catch {} n++; } return n; }`;

const SPAWN = 150_000;

describe('long texts a program sends the host, one after another', () => {
  test.each([
    ['tool call arguments', 'await api.x(long);', 'x'],
    ['tool call arguments of two-byte characters', 'await api.x(long);', '€'],
    ['tool names', 'await api[long + i]();', 'x'],
    ["import()'s specifiers", 'await import(long + i);', 'x'],
  ])(
    '%s',
    async (_name, body, char) => {
      const { envelope, grew } = await attack(rounds(body, char));
      expect(envelope.result).toBe(3000);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'a durable run journals what a token could hold and lets go of the rest; its pause then says why',
    async () => {
      const { envelope, grew } = await attack(
        `async () => { const long = 'x'.repeat(100000); for (let i = 0; i < 6000; i++) await api.x(long); await api.ask(); }`,
        'durable',
      );
      expect([envelope.code, envelope.error]).toStrictEqual([
        'TOKEN_TOO_LARGE',
        expect.stringMatching(
          /^The paused run's calls, fetch requests and delays, with their arguments and answers, came to more than/,
        ),
      ]);
      // 600 MB sent: the journal keeps at most a token's worth (16 MB) before it lets go, and the
      // host's collector takes its own pace with the rest (141 MiB seen on a loaded machine). The
      // journal kept it all before: 600 MB and more.
      expect(grew).toBeLessThan(2 * BOUND + MAX_TOKEN_SIZE);
    },
    SPAWN,
  );

  test(
    'a durable run past the most entries any journal may hold lets them go; its pause then says why',
    async () => {
      const { envelope } = await attack(
        'async () => { for (let i = 0; i < 10001; i++) await api.x(i); await api.ask(); }',
        'durable',
      );
      expect([envelope.code, envelope.error]).toStrictEqual([
        'JOURNAL_TOO_LONG',
        journalPastMostMessage(10002),
      ]);
    },
    SPAWN,
  );
});

/**
 * A string of 400 million characters made by repeat() is a rope: the program holds a few bytes,
 * and a crossing flattens it into the host. The host refused such texts only once they had crossed
 * (a 400 MB copy each, 1.5 to 4.8 GB for a handful); the isolate now measures them first.
 */
describe('texts a program hands the host at once, ropes among them', () => {
  const ROPE = "const rope = 'x'.repeat(400_000_000);";
  const four = (send: string) =>
    `async () => { ${ROPE} const out = []; for (let i = 0; i < 4; i++) { try { await ${send}; out.push('sent'); } catch (error) { out.push(String(error.message).slice(0, 60)); } } return out; }`;

  test(
    'as a tool call, through the dispatch global: refused as the host would, before it crosses',
    async () => {
      const { envelope, grew } = await attack(four("__dispatch('api', 'x', rope)"));
      expect(envelope.result).toStrictEqual(
        Array(4).fill(payloadTooLargeMessage('tool call', 400_000_004, PAYLOAD_LIMIT).slice(0, 60)),
      );
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'as calls that fit one by one, sent together: past the payload limit in flight, refused',
    async () => {
      const { envelope, grew } = await attack(
        `async () => { const text = 'x'.repeat(${PAYLOAD_LIMIT} - 8); const calls = []; for (let i = 0; i < 12; i++) calls.push(__dispatch('api', 'x', text).then(() => 'sent', (error) => String(error.message).slice(0, 40))); return await Promise.all(calls); }`,
      );
      expect(envelope.result).toStrictEqual([
        'sent',
        ...Array(11).fill('The set of tool calls in flight is 67108'),
      ]);
      expect(grew).toBeLessThan(BOUND + PAYLOAD_LIMIT * 2);
    },
    SPAWN,
  );

  test(
    "as import()'s specifier: refused before it crosses",
    async () => {
      const { envelope, grew } = await attack(four('import(rope)'));
      expect(envelope.result).toStrictEqual(Array(4).fill(IMPORT_NAMES_MESSAGE.slice(0, 60)));
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'as a console line: only its length crosses, and the line is dropped as before',
    async () => {
      const { envelope, grew } = await attack(
        `async () => { ${ROPE} console.log(rope); console.log('after'); return 'done'; }`,
      );
      expect([envelope.result, envelope.logs]).toStrictEqual(['done', 1]);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    "as fetches' header values, sent together: past the requests' budget, a TypeError before they cross",
    async () => {
      // One value of ten million characters in eight requests at once: 20 MB each as the host would
      // hold them. Six fit the 128 MiB budget (the execution's memory limit); the last two are
      // refused before they cross. A value large enough to pass the budget alone would first pass the
      // isolate's own limit, since Headers read it (and flatten the rope) inside.
      const { envelope } = await attack(
        `async () => { const value = 'x'.repeat(10_000_000); const sent = []; for (let i = 0; i < 8; i++) sent.push(fetch('https://example.com/', { headers: { a: value } }).then(() => 'answered', (error) => error.message)); return await Promise.all(sent); }`,
      );
      const refused = requestBudgetMessage(20_000_048, 128 * MiB, 120_000_288);
      const results = envelope.result as string[];
      expect(results.slice(6)).toStrictEqual([refused, refused]);
      expect(results.slice(0, 6).filter((result) => result === refused)).toStrictEqual([]);
    },
    SPAWN,
  );

  test(
    "as a fetch's method, sent together: counted by the requests' budget as its URL is",
    async () => {
      const { envelope } = await attack(
        `async () => { const request = new Request('https://example.com/', { method: 'X'.repeat(10_000_000) }); const sent = []; for (let i = 0; i < 8; i++) sent.push(fetch(request.clone()).then(() => 'answered', (error) => error.message)); return await Promise.all(sent); }`,
      );
      const refused = requestBudgetMessage(20_000_040, 128 * MiB, 120_000_240);
      const results = envelope.result as string[];
      expect(results.slice(6)).toStrictEqual([refused, refused]);
      expect(results.slice(0, 6).filter((result) => result === refused)).toStrictEqual([]);
    },
    SPAWN,
  );
});

/** A retained handler's answer, made by the program and taken by each invoke the host makes. */
const invokeProbe = `
import { readFileSync } from 'node:fs';
import { Sandbox } from ${JSON.stringify(fileURLToPath(new URL('../../src/sandbox/sandbox.ts', import.meta.url)))};
const peak = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const sandbox = new Sandbox();
await sandbox.execute({ code: 'async () => 1' });
const before = peak();
const envelope = await sandbox.execute({ code: process.argv[1], retainHandles: true, timeout: 60000 });
const answers = [];
for (let i = 0; i < 3; i++) {
  try {
    const response = await sandbox.invoke(envelope.executionId, { method: 'GET', url: 'https://example.com/', headers: [], body: null });
    answers.push('answered ' + response.status);
  } catch (error) {
    answers.push(String(error.message));
  }
}
const grew = peak() - before;
await sandbox.dispose();
console.log(JSON.stringify({ answers, grew }));
`;

async function invokeAttack(code: string): Promise<{ answers: string[]; grew: number }> {
  const { stdout } = await run(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', '--input-type=module', '-e', invokeProbe, code],
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 120_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string);
}

describe("a retained handler's answer", () => {
  test(
    'a thrown message of 300 million characters is refused in the isolate, before it crosses',
    async () => {
      const { answers, grew } = await invokeAttack(
        "async () => { const rope = 'x'.repeat(300_000_000); return () => { throw new Error(rope); }; }",
      );
      expect(answers.map((answer) => answer.includes(HANDLER_ANSWER_TOO_LARGE_MESSAGE))).toStrictEqual([
        true,
        true,
        true,
      ]);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'a header value past the payload limit is refused in the isolate, before it crosses',
    async () => {
      const { answers } = await invokeAttack(
        "async () => { const value = 'x'.repeat(40_000_000); return () => new Response('body', { headers: { a: value } }); }",
      );
      expect(answers.map((answer) => answer.includes(HANDLER_ANSWER_TOO_LARGE_MESSAGE))).toStrictEqual([
        true,
        true,
        true,
      ]);
    },
    SPAWN,
  );

  test(
    'a small answer still arrives',
    async () => {
      const { answers } = await invokeAttack(
        "async () => () => new Response('body', { headers: { a: 'b' } })",
      );
      expect(answers).toStrictEqual(['answered 200', 'answered 200', 'answered 200']);
    },
    SPAWN,
  );
});
