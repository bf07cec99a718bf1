/**
 * Durable runs from the command line (docs/durable.md, "The command line"): `run --durable` prints
 * the paused envelope and exits 3; `resume FILE --token PATH --answers PATH` finishes the run with
 * the tool performed or answered by hand, from the token's text or from the envelope run --json
 * printed. The key ring comes from the environment or a file; without one, and for a token that is
 * tampered with or meant for another program, nothing runs.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseForDispatch } from '@supolka/codemode-protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { RESUME_USAGE } from '../../src/cli/resume.ts';
import { NO_DURABLE_KEYS_MESSAGE, PAUSED_EXIT } from '../../src/cli/run.ts';
import { BIN, removeScratch, scratch, write } from './cli-process.ts';

const dir = scratch();
afterAll(removeScratch);

const KEYS = `k1=${randomBytes(32).toString('base64')}`;
/** The build the bin loads: a tools module pauses through the same module the command runs. */
const EXECUTOR = pathToFileURL(new URL('../../dist/index.js', import.meta.url).pathname).href;

const tools = write(
  dir,
  'tools.mjs',
  `import { durableCall, pause } from '${EXECUTOR}';
export default {
  shop: {
    price: (item) => item.length,
    buy: (item, price) => {
      if (process.env.APPROVED !== 'yes') pause({ item, price }, { reason: 'approval' });
      return 'bought ' + item + ' with key ' + (durableCall()?.idempotencyKey ? 'set' : 'unset');
    },
  },
};
`,
);
const program = write(
  dir,
  'buy.js',
  "const price = await shop.price('apples'); return await shop.buy('apples', price);",
);

function command(args: readonly string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, CODEMODE_DURABLE_KEYS: KEYS, ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

type Envelope = {
  result?: unknown;
  error?: string;
  code?: string;
  paused?: { token: string; pending: { sequence: number }[] };
};

function paused(): { envelope: Envelope; file: string } {
  const ran = command(['run', program, '--tools', tools, '--durable', '--json']);
  expect(ran.status).toBe(PAUSED_EXIT);
  const envelope = parseForDispatch(ran.stdout) as Envelope;
  return { envelope, file: write(dir, `paused-${randomBytes(4).toString('hex')}.json`, ran.stdout) };
}

describe('a durable run from the command line', () => {
  test('run --durable prints the paused envelope and exits 3; resume performs the call and exits 0', () => {
    const { envelope, file } = paused();
    expect(envelope.paused?.pending.map((call) => call.sequence)).toStrictEqual([2]);
    const answers = write(dir, 'perform.json', JSON.stringify({ 2: { perform: true } }));
    const resumed = command(
      ['resume', program, '--tools', tools, '--token', file, '--answers', answers, '--json'],
      {
        APPROVED: 'yes',
      },
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(parseForDispatch(resumed.stdout)).toStrictEqual({
      result: 'bought apples with key set',
      logs: [],
    });
  });

  test('a token file holding the token alone, answered by hand', () => {
    const { envelope } = paused();
    const token = write(dir, 'token.txt', `${envelope.paused?.token}\n`);
    const answers = write(dir, 'by-hand.json', JSON.stringify({ 2: { result: 'bought by hand' } }));
    const resumed = command(['resume', program, '--tools', tools, '--token', token, '--answers', answers]);
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toBe("{ result: 'bought by hand', logs: [] }\n");
  });
});

describe('what the command refuses', () => {
  test('a durable run or a resume without a key ring, and a resume without its files', () => {
    const { CODEMODE_DURABLE_KEYS: _, CODEMODE_DURABLE_KEYS_FILE: __, ...bare } = process.env;
    const without = spawnSync(process.execPath, [BIN, 'run', program, '--tools', tools, '--durable'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: bare,
    });
    expect(without.status).toBe(2);
    expect(without.stderr).toContain(NO_DURABLE_KEYS_MESSAGE);
    const missing = command(['resume', program, '--answers', 'x.json']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('resume needs --token PATH, the file holding the token.');
    expect(command(['help', 'resume'])).toStrictEqual({ status: 0, stdout: RESUME_USAGE, stderr: '' });
  });

  test('a tampered token, one for another program, and one under another key: nothing runs', () => {
    const { envelope } = paused();
    const token = envelope.paused?.token as string;
    const at = token.length - 30;
    const tampered = write(
      dir,
      'tampered.txt',
      token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1),
    );
    const answers = write(dir, 'perform-again.json', JSON.stringify({ 2: { perform: true } }));
    const resume = (file: string, code = program, env: Record<string, string> = {}) =>
      parseForDispatch(
        command(['resume', code, '--tools', tools, '--token', file, '--answers', answers, '--json'], {
          APPROVED: 'yes',
          ...env,
        }).stdout,
      ) as Envelope;
    expect(resume(tampered).code).toBe('TOKEN_FORGED');
    const other = write(dir, 'other.js', "return await shop.buy('pears', 5);");
    const genuine = write(dir, 'genuine.txt', token);
    expect(resume(genuine, other).code).toBe('TOKEN_MISMATCH');
    expect(
      resume(genuine, program, { CODEMODE_DURABLE_KEYS: `k1=${randomBytes(32).toString('base64')}` }).code,
    ).toBe('TOKEN_FORGED');
  });
});
