/**
 * The workerd harness itself: it starts one real workerd, reports it ready only once the host
 * Worker serves, fails with workerd's own stderr when startup fails, stops idempotently, and leaves
 * no workerd behind when the process that started it ends any other way.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { WorkerdProcess } from '../src/workerd/process.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls until `pid` is gone; a killed child may take a moment to be reaped. */
async function gone(pid: number, within = 5000): Promise<boolean> {
  const deadline = Date.now() + within;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !alive(pid);
}

describe('WorkerdProcess', () => {
  test('serves once ready, and dispose stops it (twice is harmless)', async () => {
    const workerd = await WorkerdProcess.start({ loopbackAddress: '127.0.0.1:9' });
    const pid = workerd.pid as number;
    expect(await (await fetch(`${workerd.url}/__ready`)).text()).toBe('ready');
    await Promise.all([workerd.dispose(), workerd.dispose()]);
    await workerd.dispose();
    expect(await gone(pid)).toBe(true);
  });

  test('a startup failure rejects with what workerd wrote to stderr', async () => {
    const failure = WorkerdProcess.start({ loopbackAddress: '127.0.0.1:9', extraArgs: ['--no-such-flag'] });
    await expect(failure).rejects.toThrow(
      /^workerd exited during startup \(code \d+\)\.\n[\s\S]*no-such-flag/,
    );
  });

  test('a binary that cannot be spawned rejects with the reason', async () => {
    const failure = WorkerdProcess.start({ loopbackAddress: '127.0.0.1:9', binary: '/nonexistent/workerd' });
    await expect(failure).rejects.toThrow(
      /^workerd could not be started: spawn \/nonexistent\/workerd ENOENT/,
    );
  });

  test('readiness is bounded by its deadline', async () => {
    // A stand-in that never writes a control message: startup fails at the deadline, not later.
    const binary = new URL('./fixtures/silent-workerd.sh', import.meta.url).pathname;
    const failure = WorkerdProcess.start({ loopbackAddress: '127.0.0.1:9', binary, readyTimeout: 300 });
    await expect(failure).rejects.toThrow(/^workerd did not listen within 300 ms\./);
  });
});

describe('no stray workerd when the process that started it ends', () => {
  for (const how of ['throw', 'exit', 'signal'] as const) {
    test(how, async () => {
      const child = spawn(
        process.execPath,
        [new URL('./fixtures/abandon-workerd.ts', import.meta.url).pathname, how],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const exited = once(child, 'exit');
      while (!output.includes('\n')) {
        await Promise.race([once(child.stdout, 'data'), exited]);
        if (child.exitCode !== null && !output.includes('\n'))
          throw new Error(`the fixture ended before workerd started`);
      }
      const pid = Number(output.split('\n')[0]);
      expect(alive(pid)).toBe(true);
      if (how === 'signal') child.kill('SIGTERM');
      await exited;
      expect(await gone(pid)).toBe(true);
    });
  }
});

test('no stray workerd after a vitest run whose tests fail', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'compat-failing-run-'));
  const pidFile = join(directory, 'pid');
  try {
    const run = promisify(execFile)(
      process.execPath,
      [
        new URL('../node_modules/vitest/vitest.mjs', import.meta.url).pathname,
        'run',
        '--root',
        new URL('./fixtures/failing-run/', import.meta.url).pathname,
      ],
      { env: { ...process.env, COMPAT_PID_FILE: pidFile } },
    );
    await expect(run).rejects.toMatchObject({ code: 1 });
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(await gone(pid)).toBe(true);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}, 60_000);
