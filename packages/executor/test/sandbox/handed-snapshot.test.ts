/**
 * A runtime snapshot handed from one process to another (src/sandbox/setup/handed-snapshot.ts):
 * adopted only when its key names what made this process's own and its bytes match the CRC-32
 * that came with them, and then serving isolates as a snapshot made here would; refused otherwise,
 * with nothing of it reaching V8. That a child of the build adopts one without loading node:crypto
 * is test/executor/entry-points.test.ts's to show: run from the sources, the key hashes the scripts. V8 restoring bytes it cannot use ends the process in a fatal error no `try` catches,
 * so every process that restores one, or might, is a child of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  adoptHandedSnapshot,
  FOREIGN_SNAPSHOT_MESSAGE,
  ownSnapshot,
  runtimeSnapshotKey,
  SNAPSHOT_ALREADY_MADE_MESSAGE,
  SNAPSHOT_CHECK_MESSAGE,
  snapshotRefusal,
  snapshotTooLargeMessage,
} from '../../src/sandbox/setup/handed-snapshot.ts';
import { SNAPSHOT_BYTES_LIMIT, START_KEY_LIMIT } from '../../src/sandbox/setup/snapshot-limit.ts';
import { snapshotDigest, startCheck } from '../../src/sandbox/setup/start-check.ts';

const source = (path: string) =>
  JSON.stringify(fileURLToPath(new URL(`../../src/sandbox/${path}`, import.meta.url)));
const isolatedVm = JSON.stringify(createRequire(import.meta.url).resolve('isolated-vm'));
const scratch = mkdtempSync(join(tmpdir(), 'codemode-handed-snapshot-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The flags every process below runs with, as a pool child does (adr/0002). */
const FLAGS = ['--no-node-snapshot', '--no-wasm-code-gc'];
let scripts = 0;

/**
 * Runs `script` in a process of its own with `flags`. From a file, not `-e`: the key names every
 * flag of the command line, and `-e` would put the script itself among them.
 */
function run(script: string, flags: readonly string[] = FLAGS, env: NodeJS.ProcessEnv = process.env) {
  const file = join(scratch, `script-${scripts++}.mjs`);
  writeFileSync(file, script);
  const ran = spawnSync(process.execPath, [...flags, file], { encoding: 'utf8', timeout: 60_000, env });
  return { stdout: ran.stdout.trim(), stderr: ran.stderr, status: ran.status, signal: ran.signal };
}

/** A process that makes its snapshot and writes it, as it would hand it on, to `file` (+ .json). */
function makeSnapshot(file: string, flags: readonly string[] = FLAGS): void {
  const made = run(
    `import { writeFileSync } from 'node:fs';
     import { ownSnapshot } from ${source('setup/handed-snapshot.ts')};
     const own = ownSnapshot();
     writeFileSync(${JSON.stringify(file)}, own.bytes);
     writeFileSync(${JSON.stringify(`${file}.json`)}, JSON.stringify({ key: own.key, digest: own.digest, check: own.check }));
     console.log('made');`,
    flags,
  );
  expect(made).toMatchObject({ stdout: 'made', status: 0 });
}

/**
 * A process that reads the snapshot in `file`, lets `change` alter it (a statement over `bytes` and
 * `handed`), adopts it or says why not, then restores an isolate from whatever snapshot it holds
 * and prints what the runtime in it answers.
 */
function adopt(file: string, change = '', flags: readonly string[] = FLAGS) {
  return run(
    `import { readFileSync } from 'node:fs';
     import { adoptHandedSnapshot } from ${source('setup/handed-snapshot.ts')};
     import { readRuntimeSnapshot } from ${source('runtime.ts')};
     import { createIsolate } from ${source('isolate.ts')};
     const bytes = new Uint8Array(readFileSync(${JSON.stringify(file)}));
     const handed = { ...JSON.parse(readFileSync(${JSON.stringify(`${file}.json`)}, 'utf8')), bytes };
     ${change}
     console.log(adoptHandedSnapshot(handed) ?? 'adopted');
     const { context } = createIsolate({ memoryLimit: 32, snapshot: readRuntimeSnapshot() });
     console.log(context.evalSync("new URL('https://a.test/b?c=d').searchParams.get('c') + ' ' + typeof TextEncoder"));`,
    flags,
  );
}

describe('a snapshot made in another process', () => {
  const made = join(scratch, 'made.bin');
  beforeAll(() => makeSnapshot(made));

  test('is adopted when its key and CRC-32 hold, and isolates restored from it run the runtime', () => {
    expect(adopt(made)).toMatchObject({ stdout: 'adopted\nd function', status: 0 });
  });

  test('damaged anywhere, in one bit or cut short, is refused before V8 sees it', () => {
    for (const damage of [
      'bytes[bytes.length >> 1] ^= 0x01;',
      'bytes[bytes.length - 1] ^= 0x80;',
      'handed.bytes = bytes.subarray(0, bytes.length - 1);',
      'bytes.fill(0, 4096, 8192);',
      'handed.check = (handed.check + 1) >>> 0;',
      // The digest is in the CRC-32: the child commits to it when asked for its start.
      "handed.digest = handed.digest.replace(/^./, (digit) => (digit === '0' ? '1' : '0'));",
    ]) {
      expect(adopt(made, damage)).toMatchObject({
        stdout: `${SNAPSHOT_CHECK_MESSAGE}\nd function`,
        status: 0,
      });
    }
  });

  test('with its first bytes damaged, is refused before V8 sees it, and the process makes its own', () => {
    const damage = 'for (let index = 0; index < 64; index++) bytes[index] ^= 0xff;';
    expect(adopt(made, damage)).toMatchObject({
      stdout: `${SNAPSHOT_CHECK_MESSAGE}\nd function`,
      status: 0,
    });
  });

  test('the same damaged bytes, handed to V8 unchecked, end the process: the check is what saves it', () => {
    const restored = run(
      `import ivm from ${isolatedVm};
       import { readFileSync } from 'node:fs';
       const bytes = new Uint8Array(readFileSync(${JSON.stringify(made)}));
       for (let index = 0; index < 64; index++) bytes[index] ^= 0xff;
       try {
         new ivm.Isolate({ memoryLimit: 32, snapshot: new ivm.ExternalCopy(bytes.buffer) }).createContextSync();
       } catch {}
       console.log('survived');`,
    );
    expect(restored.stdout).toBe('');
    expect(restored.signal).not.toBeNull();
    expect(restored.stderr).toMatch(/Fatal error/);
  });

  test('under a key that names another build is refused', () => {
    const otherKey = "handed.key = handed.key.replace('runtime snapshot', 'another build');";
    expect(adopt(made, otherKey)).toMatchObject({
      stdout: `${FOREIGN_SNAPSHOT_MESSAGE}\nd function`,
      status: 0,
    });
  });

  test('made under other V8 flags is refused by a process without them', () => {
    const flagged = join(scratch, 'flagged.bin');
    makeSnapshot(flagged, [...FLAGS, '--max-semi-space-size=1']);
    expect(adopt(flagged)).toMatchObject({ stdout: `${FOREIGN_SNAPSHOT_MESSAGE}\nd function`, status: 0 });
    expect(adopt(flagged, '', [...FLAGS, '--max-semi-space-size=1'])).toMatchObject({
      stdout: 'adopted\nd function',
      status: 0,
    });
  });
});

describe('the checks in this process', () => {
  test('refuse bytes past the limit', () => {
    const bytes = new Uint8Array(SNAPSHOT_BYTES_LIMIT + 1);
    const key = runtimeSnapshotKey() as string;
    const digest = snapshotDigest(bytes);
    expect(snapshotRefusal({ key, digest, check: startCheck(digest, bytes), bytes })).toBe(
      snapshotTooLargeMessage(SNAPSHOT_BYTES_LIMIT + 1),
    );
  });

  test("accept this process's own snapshot, which it cannot adopt a second time", () => {
    const own = ownSnapshot();
    if (own === undefined) throw new Error('this process keeps no start');
    expect(own.digest).toBe(snapshotDigest(own.bytes));
    expect(own.check).toBe(startCheck(own.digest, own.bytes));
    expect(snapshotRefusal(own)).toBeUndefined();
    expect(adoptHandedSnapshot(own)).toBe(SNAPSHOT_ALREADY_MADE_MESSAGE);
  });

  test('name the flags and NODE_OPTIONS word for word in the key, and keep no start past its limit', () => {
    const script = `import { ownSnapshot, runtimeSnapshotKey, snapshotRefusal } from ${source('setup/handed-snapshot.ts')};
      const key = runtimeSnapshotKey();
      console.log(JSON.stringify({ key: key ?? null, own: ownSnapshot() === undefined ? null : 'kept',
        refused: snapshotRefusal({ key: key ?? '', digest: '', check: 0, bytes: new Uint8Array(0) }) }));`;
    const options = (value: string) => ({ ...process.env, NODE_OPTIONS: value });
    const short = JSON.parse(run(script, FLAGS, options('--title=a-short-title')).stdout);
    expect(short.own).toBe('kept');
    expect(JSON.parse(short.key)).toEqual(expect.arrayContaining([FLAGS, '--title=a-short-title']));
    const long = JSON.parse(run(script, FLAGS, options(`--title=${'t'.repeat(START_KEY_LIMIT)}`)).stdout);
    expect(long).toStrictEqual({ key: null, own: null, refused: FOREIGN_SNAPSHOT_MESSAGE });
  });
});
