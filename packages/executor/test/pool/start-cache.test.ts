/**
 * The start cache on disk through real pools (docs/pool.md, "The start cache on disk"): the first
 * child of a process with nothing cached makes its start and keeps it, the first child of the next
 * process starts from it, and an entry that fails a check (damaged bytes, another build's, another
 * layout, a link) is refused before V8 sees it: the child says why and makes its own, which
 * replaces it. V8 ends a process restoring a damaged or foreign snapshot, so every refusal here is
 * in a child process of its own, which would die and fail its start were the check missing. A disk
 * that fails a write fails no run. The cache folders are this file's own, removed after each test.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, onTestFinished, test } from 'vitest';
import { openTrustedDirectory } from '../../src/cache/trusted-directory.ts';
import { DEFAULT_CHILD_EXEC_ARGV, IsolateExecutor, type IsolateExecutorOptions } from '../../src/index.ts';
import { HANDED_REPORT_MESSAGE } from '../../src/pool/child/hand-on-start.ts';
import type { StartReport } from '../../src/pool/messages/health.ts';
import type { EngineReport } from '../../src/sandbox/isolate.ts';
import {
  CACHED_KEY_MESSAGE,
  CACHED_LAYOUT_MESSAGE,
  HEADER_LIMIT,
  writeCachedStart,
} from '../../src/sandbox/setup/cached-start.ts';
import { SNAPSHOT_CHECK_MESSAGE } from '../../src/sandbox/setup/handed-snapshot.ts';
import { RUNTIME_ANSWER, RUNTIME_PROGRAM, testFolder, usePool } from './helpers.ts';

/** A cache root of this test's own; the starts go in its `start` folder. */
function cacheRoot(): { root: string; folder: string } {
  const root = testFolder('codemode-start-cache-');
  return { root, folder: join(root, 'start') };
}

/**
 * One process's worth of pool: an executor of one child over the cache at `root` runs the program
 * once and is disposed. Answers how its child started.
 */
async function runOnce(root: string, options: IsolateExecutorOptions = {}): Promise<StartReport | undefined> {
  const starts: (StartReport | undefined)[] = [];
  const executor = new IsolateExecutor({
    poolSize: 1,
    cache: { directory: root },
    onPoolEvent: (event) => {
      if (event.type === 'healthy') starts.push(event.start);
    },
    ...options,
  });
  try {
    expect(await executor.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
  } finally {
    await executor.dispose();
  }
  return starts[0];
}

/** The one start kept in `folder`: its path, header and bytes. */
function theEntry(folder: string): { path: string; header: Record<string, unknown>; body: Buffer } {
  const names = readdirSync(folder);
  expect(names).toHaveLength(1);
  expect(names[0]).toMatch(/^[0-9a-f]{8}-\d+\.start$/);
  const path = join(folder, names[0] as string);
  const bytes = readFileSync(path);
  const end = bytes.indexOf(0x0a);
  return { path, header: JSON.parse(bytes.toString('utf8', 0, end)), body: bytes.subarray(end + 1) };
}

function rewrite(path: string, header: unknown, body: Uint8Array): void {
  writeFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]), { mode: 0o600 });
}

describe('the start kept on disk', () => {
  test('the first process keeps its start, 0600 in a 0700 folder; the next starts from it', async () => {
    const { root, folder } = cacheRoot();
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built' });
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const { path, header, body } = theEntry(folder);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(header).toMatchObject({ format: 2, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(header.digest).toBe(createHash('sha256').update(body).digest('hex'));
    expect(header.check).toBe(crc32(body, crc32(header.digest as string)));
    expect(body.length).toBeGreaterThan(100_000);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'cached' });
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'cached' });
  });

  test('a child that started from the cache hands its start on to the child that replaces it', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { pool, log } = usePool({
      size: 1,
      maxExecutionsPerChild: 2,
      heartbeatInterval: 20,
      startCache: folder,
    });
    for (let turn = 0; turn < 2; turn++) {
      expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
      // Two heartbeat answers while idle: the snapshot leaves behind one of them.
      const answered = () =>
        pool.stats().children.find((child) => child.state === 'idle')?.heartbeatsAnswered ?? 0;
      const target = answered() + 2;
      while (answered() < target) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await pool.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    }
    const starts = log.events.filter((event) => event.type === 'healthy').map((event) => event.start);
    expect(starts.slice(0, 2)).toStrictEqual([{ snapshot: 'cached' }, { snapshot: 'handedOn' }]);
  });

  test('the environment names the folder by default; the switch or the option off keeps nothing', async () => {
    const saved = { switch: process.env.CODEMODE_CACHE, folder: process.env.CODEMODE_CACHE_DIR };
    onTestFinished(() => {
      for (const [name, value] of [
        ['CODEMODE_CACHE', saved.switch],
        ['CODEMODE_CACHE_DIR', saved.folder],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    const on = cacheRoot();
    const off = cacheRoot();
    delete process.env.CODEMODE_CACHE;
    process.env.CODEMODE_CACHE_DIR = on.root;
    expect(await runOnce(on.root, { cache: true })).toStrictEqual({ snapshot: 'built' });
    expect(readdirSync(on.folder)).toHaveLength(1);
    process.env.CODEMODE_CACHE_DIR = off.root;
    expect(await runOnce(off.root, { cache: false })).toStrictEqual({ snapshot: 'built' });
    process.env.CODEMODE_CACHE = 'off';
    expect(await runOnce(off.root, { cache: true })).toStrictEqual({ snapshot: 'built' });
    expect(readdirSync(off.root)).toStrictEqual([]);
  });
});

describe("the children's compiled code", () => {
  test('a child keeps what Node compiled for it beside its start; the next child reads it back', async () => {
    const { root } = cacheRoot();
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built' });
    const compile = join(root, 'compile');
    const perNode = readdirSync(compile);
    // One folder for the children's Node build and flags, private, holding the modules they loaded.
    expect(perNode).toHaveLength(1);
    const folder = join(compile, perNode[0] as string);
    expect(statSync(compile).mode & 0o777).toBe(0o700);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const written = new Map(readdirSync(folder).map((name) => [name, statSync(join(folder, name)).mtimeMs]));
    expect(written.size).toBeGreaterThan(0);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'cached' });
    // Node writes an entry again only for a module it compiled anew: every one was read back.
    const after = new Map(readdirSync(folder).map((name) => [name, statSync(join(folder, name)).mtimeMs]));
    expect(after).toStrictEqual(written);
  });

  test("the user's own NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE is left to Node", async () => {
    for (const name of ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE'] as const) {
      const { root } = cacheRoot();
      const theirs = join(root, 'theirs');
      process.env[name] = name === 'NODE_COMPILE_CACHE' ? theirs : '1';
      try {
        expect(await runOnce(root)).toStrictEqual({ snapshot: 'built' });
      } finally {
        delete process.env[name];
      }
      expect(readdirSync(root).sort()).toStrictEqual(
        name === 'NODE_COMPILE_CACHE' ? ['start', 'theirs'] : ['start'],
      );
    }
  });
});

describe('an entry refused before V8 sees it', () => {
  test('damaged bytes: refused by the CRC-32, and replaced by the child’s own', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { path, header, body } = theEntry(folder);
    const damaged = Buffer.from(body);
    for (let index = 0; index < 64; index++) damaged[index] = (damaged[index] as number) ^ 0xff;
    rewrite(path, header, damaged);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: SNAPSHOT_CHECK_MESSAGE });
    // The child's own start replaced it (a snapshot is not byte for byte the same each time it is made).
    const replaced = theEntry(folder);
    expect(createHash('sha256').update(replaced.body).digest('hex')).toBe(replaced.header.digest);
    expect(crc32(replaced.body, crc32(replaced.header.digest as string))).toBe(replaced.header.check);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'cached' });
  });

  test('one bit flipped deep in the bytes, or the bytes cut short: refused by the CRC-32', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { path, header, body } = theEntry(folder);
    const flipped = Buffer.from(body);
    flipped[flipped.length >> 1] = (flipped[flipped.length >> 1] as number) ^ 0x10;
    rewrite(path, header, flipped);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: SNAPSHOT_CHECK_MESSAGE });
    const kept = theEntry(folder);
    rewrite(kept.path, kept.header, kept.body.subarray(0, kept.body.length - 4096));
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: SNAPSHOT_CHECK_MESSAGE });
  });

  test('a digest damaged in the header: refused by the CRC-32 and replaced, not committed to and handed on', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { path, header, body } = theEntry(folder);
    const digest = header.digest as string;
    rewrite(path, { ...header, digest: `${digest[0] === '0' ? '1' : '0'}${digest.slice(1)}` }, body);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: SNAPSHOT_CHECK_MESSAGE });
    const replaced = theEntry(folder);
    expect(createHash('sha256').update(replaced.body).digest('hex')).toBe(replaced.header.digest);
    // Not a SHA-256 at all: another layout.
    rewrite(replaced.path, { ...replaced.header, digest: 'not hex' }, replaced.body);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: CACHED_LAYOUT_MESSAGE });
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'cached' });
  });

  test('another build’s start under this build’s name: refused by its key', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const [ours] = readdirSync(folder);
    // Another build: children under one more V8 flag, whose start is kept under its own key.
    await runOnce(root, { childExecArgv: [...DEFAULT_CHILD_EXEC_ARGV, '--stack-size=900'] });
    const [theirs] = readdirSync(folder).filter((name) => name !== ours);
    expect(theirs).toBeDefined();
    renameSync(join(folder, theirs as string), join(folder, ours as string));
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: CACHED_KEY_MESSAGE });
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'cached' });
  });

  test('a header of another layout (the one before among them), or a report naming other behaviours: refused', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { path, header, body } = theEntry(folder);
    writeFileSync(path, Buffer.concat([Buffer.from('not json\n'), body]), { mode: 0o600 });
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: CACHED_LAYOUT_MESSAGE });
    // A header past its bound, and one nested a hundred thousand deep: read no further than the
    // bound, and refused, in the child that read them.
    for (const line of ['x'.repeat(HEADER_LIMIT + 1), `${'['.repeat(100_000)}${']'.repeat(100_000)}`]) {
      writeFileSync(path, Buffer.concat([Buffer.from(`${line}\n`), body]), { mode: 0o600 });
      expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: CACHED_LAYOUT_MESSAGE });
    }
    // The layout before: a SHA-256 only, no CRC-32.
    const { check: _, ...earlier } = header;
    rewrite(path, { ...earlier, format: 1 }, body);
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: CACHED_LAYOUT_MESSAGE });
    const engine = header.engine as { behaviours: Record<string, unknown> };
    rewrite(
      path,
      { ...header, engine: { ...engine, behaviours: { someOtherBehaviour: { present: true } } } },
      body,
    );
    expect(await runOnce(root)).toStrictEqual({ snapshot: 'built', cacheRefused: HANDED_REPORT_MESSAGE });
  });

  test('a link in the entry’s place is not followed', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { path } = theEntry(folder);
    const elsewhere = join(root, 'elsewhere.start');
    renameSync(path, elsewhere);
    symlinkSync(elsewhere, path);
    const name = path.slice(folder.length + 1);
    expect(await runOnce(root)).toStrictEqual({
      snapshot: 'built',
      cacheRefused: `the cache entry ${name} is a link`,
    });
  });
});

describe('a disk that fails', () => {
  test('a start that cannot be written fails no run and leaves nothing behind', async () => {
    const { root, folder } = cacheRoot();
    await runOnce(root);
    const { path } = theEntry(folder);
    rmSync(path);
    // A folder with something in it where the entry goes: every write of it fails.
    mkdirSync(join(path, 'inside'), { recursive: true });
    const name = path.slice(folder.length + 1);
    expect(await runOnce(root)).toMatchObject({
      snapshot: 'built',
      cacheRefused: expect.stringContaining(name),
    });
    expect(await runOnce(root)).toMatchObject({ snapshot: 'built' });
    expect(readdirSync(folder)).toStrictEqual([name]);
  });

  test('flags near the key’s limit, escaped eightfold in the header, still make an entry a reader takes', async () => {
    const { root } = cacheRoot();
    // Each backslash is one character of the flag, two in the key, eight in the header's JSON:
    // about 64 KiB of header, with the runtime's key a few hundred characters short of its limit.
    const options = { childExecArgv: [...DEFAULT_CHILD_EXEC_ARGV, `--title=${'\\'.repeat(8000)}`] };
    expect(await runOnce(root, options)).toStrictEqual({ snapshot: 'built' });
    expect(await runOnce(root, options)).toStrictEqual({ snapshot: 'cached' });
  });

  test('a header past its bound is not written', () => {
    const { root } = cacheRoot();
    const opened = openTrustedDirectory(join(root, 'start'), { create: true });
    if (!('directory' in opened)) throw new Error('the folder was refused');
    const bytes = new Uint8Array(16);
    const own = { key: 'k', digest: 'a'.repeat(64), check: 0, bytes };
    const engine = {
      isolatedVm: '7',
      node: process.version,
      behaviours: {},
      fallbacks: ['f'.repeat(HEADER_LIMIT)],
    } as unknown as EngineReport;
    expect(writeCachedStart(opened.directory, engine, own)).toBe(false);
    expect(readdirSync(join(root, 'start'))).toStrictEqual([]);
  });

  test('a folder removed after the pool checked it fails no run', async () => {
    const { root, folder } = cacheRoot();
    const starts: unknown[] = [];
    const executor = new IsolateExecutor({
      poolSize: 1,
      cache: { directory: root },
      onPoolEvent: (event) => {
        if (event.type === 'healthy') starts.push(event.start);
      },
    });
    rmSync(root, { recursive: true });
    try {
      expect(await executor.execute({ code: RUNTIME_PROGRAM })).toStrictEqual(RUNTIME_ANSWER);
    } finally {
      await executor.dispose();
    }
    expect(starts).toStrictEqual([{ snapshot: 'built' }]);
    expect(existsSync(folder)).toBe(false);
  });
});
