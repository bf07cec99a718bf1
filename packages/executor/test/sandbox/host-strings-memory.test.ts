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
 * Each attack sends 300 MB; BOUND leaves room for the engine, the allocator and the collector's
 * own pace (measured after the change: 10 to 45 MiB), far below what the attacks sent.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { journalPastMostMessage } from '../../src/durable/texts.ts';

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
  test(
    'tool call arguments',
    async () => {
      const { envelope, grew } = await attack(rounds('await api.x(long);'));
      expect(envelope.result).toBe(3000);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'tool call arguments of two-byte characters',
    async () => {
      const { envelope, grew } = await attack(rounds('await api.x(long);', '€'));
      expect(envelope.result).toBe(3000);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'tool names',
    async () => {
      const { envelope, grew } = await attack(rounds('await api[long + i]();'));
      expect(envelope.result).toBe(3000);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    "import()'s specifiers",
    async () => {
      const { envelope, grew } = await attack(rounds('await import(long + i);'));
      expect(envelope.result).toBe(3000);
      expect(grew).toBeLessThan(BOUND);
    },
    SPAWN,
  );

  test(
    'a durable run journals what a token could hold and lets go of the rest; its pause then says why',
    async () => {
      const { envelope, grew } = await attack(
        `async () => { const long = 'x'.repeat(100000); for (let i = 0; i < 3000; i++) await api.x(long); await api.ask(); }`,
        'durable',
      );
      expect([envelope.code, envelope.error]).toStrictEqual([
        'TOKEN_TOO_LARGE',
        expect.stringMatching(
          /^The paused run's calls, fetch requests and delays, with their arguments and answers, came to more than/,
        ),
      ]);
      expect(grew).toBeLessThan(BOUND);
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
