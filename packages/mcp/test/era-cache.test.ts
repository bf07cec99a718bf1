/**
 * The bridge remembers each stdio upstream's protocol era between processes (src/era-cache.ts):
 * real bridge processes, one after another, over a cache folder this file makes, against a server
 * whose era the test changes between starts and which logs every start of its process
 * (fixtures/era-switch-server.mjs). Counting those starts shows whether a bridge start probed on a
 * disposable second process (two starts) or knew the era (one). Then the entries are attacked the
 * ways a cache on disk can be, and each must leave the bridge starting as it would without one.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ENTRY_LIMIT, LEGACY_HORIZON } from '../src/era-cache.ts';
import { BIN, execute, firstText, removeScratch, scratch, writeConfig } from './mcp-process.ts';

const FIXTURE = new URL('./fixtures/era-switch-server.mjs', import.meta.url).pathname;

let root: string;
let eras: string;
let startLog: string;
let eraFile: string;
let config: string;
/** The name of the fixture's entry: a digest the bridge makes, learnt from its first write. */
let entry: string;

beforeAll(() => {
  const files = scratch();
  root = join(files, 'cache');
  eras = join(root, 'mcp-eras');
  startLog = join(files, 'starts.log');
  eraFile = join(files, 'era');
  writeFileSync(startLog, '');
  config = writeConfig({
    mcpServers: {
      fixture: {
        command: process.execPath,
        args: [FIXTURE],
        env: { START_LOG: startLog, ERA_FILE: eraFile },
      },
    },
  });
});

afterAll(removeScratch);

function setEra(mode: 'modern' | 'legacy' | 'legacy-exits' | 'modern-only'): void {
  writeFileSync(eraFile, mode);
}

/** How many processes of the fixture started since the last count. */
function starts(): number {
  const count = readFileSync(startLog, 'utf8').split('\n').filter(Boolean).length;
  writeFileSync(startLog, '');
  return count;
}

/**
 * One bridge process over `configFile`, the caches kept in `cacheRoot` (switched off by `off`),
 * ended once a program has asked the fixture (or `namespaces`) which era they serve; their answers.
 */
async function bridgeStart(
  cacheRoot: string,
  {
    namespaces = ['fixture'],
    configFile = config,
    off = false,
    removedFolder = undefined as string | undefined,
  } = {},
): Promise<Record<string, unknown>> {
  const command = [process.execPath, BIN, 'mcp', '--config', configFile];
  const transport = new StdioClientTransport({
    // In a folder removed before the bridge starts, when `removedFolder` names one (made here).
    ...(removedFolder === undefined
      ? { command: command[0] as string, args: command.slice(1) }
      : {
          command: 'sh',
          args: [
            '-c',
            'mkdir "$1" && cd "$1" && rmdir "$1" && shift && exec "$@"',
            'sh',
            removedFolder,
            ...command,
          ],
        }),
    stderr: 'ignore',
    // The transport passes on only a few variables of its own (HOME, PATH): these go beside them.
    env: { CODEMODE_CACHE: off ? 'off' : '', CODEMODE_CACHE_DIR: cacheRoot },
  });
  const client = new Client({ name: 'codemode-era-cache-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const answer = await execute(
      client,
      `async () => ({ ${namespaces.map((name) => `${name}: await ${name}.era({})`).join(', ')} })`,
    );
    expect(answer.isError).toBeUndefined();
    return JSON.parse(firstText(answer)) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

/** The one entry in the folder (temporaries aside): its name and what it holds. */
function theEntry(): { name: string; era: unknown; learnt: unknown } {
  const names = readdirSync(eras).filter((name) => !name.startsWith('.'));
  expect(names).toHaveLength(1);
  const name = names[0] as string;
  expect(lstatSync(join(eras, name)).isFile()).toBe(true);
  const { era, learnt, ...rest } = JSON.parse(readFileSync(join(eras, name), 'utf8'));
  expect(rest).toStrictEqual({});
  return { name, era, learnt };
}

/** An entry for the fixture as the bridge writes one, `era` learnt `age` ms ago. */
function entryBytes(era: string, age = 0): string {
  return `${JSON.stringify({ era, learnt: Date.now() - age })}\n`;
}

/** Empties the folder of remembered eras: the next start remembers nothing. */
function forgetAll(): void {
  rmSync(eras, { recursive: true, force: true });
}

describe('a stdio upstream remembered between bridge processes', () => {
  test('the first start probes on a second process; the next knows the era and starts one', async () => {
    setEra('modern');
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'modern' });
    expect(starts()).toBe(2);
    const first = theEntry();
    expect(first).toMatchObject({ era: 'modern', learnt: expect.any(Number) });
    expect(first.name).toMatch(/^[0-9a-f]{64}$/);
    entry = first.name;
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'modern' });
    expect(starts()).toBe(1);
    // Known, and not written again.
    expect(theEntry()).toStrictEqual(first);
  });

  test('a handshake-era server is remembered too, and connected without the probe', async () => {
    forgetAll();
    setEra('legacy');
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    expect(starts()).toBe(2);
    expect(theEntry()).toMatchObject({ name: entry, era: 'legacy' });
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    expect(starts()).toBe(1);
  });

  test('CODEMODE_CACHE=off remembers nothing: every start probes, and no folder is made', async () => {
    const off = join(scratch(), 'off');
    setEra('modern');
    starts();
    // The switch wins over the folder named beside it.
    for (let round = 0; round < 2; round++) {
      expect(await bridgeStart(off, { off: true })).toStrictEqual({ fixture: 'modern' });
      expect(starts()).toBe(2);
    }
    expect(existsSync(off)).toBe(false);
  });
});

describe('a remembered era that is no longer true', () => {
  test('modern, for a server now of the handshake era that exits on the probe: connected in the same start, and corrected', async () => {
    forgetAll();
    setEra('modern');
    await bridgeStart(root);
    setEra('legacy-exits');
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    // The in-place probe's process, which exited; then the probe on a second process and the session's.
    expect(starts()).toBe(3);
    expect(theEntry()).toMatchObject({ era: 'legacy' });
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    expect(starts()).toBe(1);
  });

  test('modern, for a server now of the handshake era that answers the probe: connected on the one process, and corrected', async () => {
    forgetAll();
    setEra('modern');
    await bridgeStart(root);
    setEra('legacy');
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    expect(starts()).toBe(1);
    expect(theEntry()).toMatchObject({ era: 'legacy' });
  });

  test('legacy, for a server now of the current revision only: connected in the same start, and corrected', async () => {
    forgetAll();
    setEra('modern-only');
    mkdirSync(eras, { mode: 0o700 });
    writeFileSync(join(eras, entry), entryBytes('legacy'), { mode: 0o600 });
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'modern' });
    // The handshake's process, refused; then the probe on a second process and the session's.
    expect(starts()).toBe(3);
    expect(theEntry()).toMatchObject({ era: 'modern' });
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'modern' });
    expect(starts()).toBe(1);
  });

  test('legacy is taken on trust within the horizon, and probed again past it', async () => {
    forgetAll();
    setEra('modern');
    mkdirSync(eras, { mode: 0o700 });
    // Within the horizon a server upgraded since is still served the handshake era: what the horizon bounds.
    writeFileSync(join(eras, entry), entryBytes('legacy', LEGACY_HORIZON - 60_000), { mode: 0o600 });
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    expect(starts()).toBe(1);
    writeFileSync(join(eras, entry), entryBytes('legacy', LEGACY_HORIZON + 60_000), { mode: 0o600 });
    const before = Date.now();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'modern' });
    expect(starts()).toBe(2);
    const corrected = theEntry();
    expect(corrected.era).toBe('modern');
    expect(corrected.learnt).toBeGreaterThanOrEqual(before);
  });
});

/** What each attack leaves in the folder before the bridge starts; `replaced` says whether the bridge may write over it. */
const ATTACKS: readonly { name: string; make: () => void; replaced: boolean }[] = [
  {
    name: 'garbage',
    make: () => writeFileSync(join(eras, entry), 'not an entry {', { mode: 0o600 }),
    replaced: true,
  },
  {
    name: 'an oversized file',
    make: () =>
      writeFileSync(join(eras, entry), entryBytes('legacy').padEnd(ENTRY_LIMIT * 2, ' '), { mode: 0o600 }),
    replaced: true,
  },
  {
    name: 'an era this code does not know',
    make: () => writeFileSync(join(eras, entry), entryBytes('future'), { mode: 0o600 }),
    replaced: true,
  },
  {
    name: 'a field more than an entry holds',
    make: () =>
      writeFileSync(join(eras, entry), JSON.stringify({ era: 'legacy', learnt: Date.now(), discover: {} }), {
        mode: 0o600,
      }),
    replaced: true,
  },
  {
    name: 'a time in the future',
    make: () => writeFileSync(join(eras, entry), entryBytes('legacy', -LEGACY_HORIZON), { mode: 0o600 }),
    replaced: true,
  },
  {
    name: 'an entry others may write to',
    make: () => {
      writeFileSync(join(eras, entry), entryBytes('legacy'));
      chmodSync(join(eras, entry), 0o666);
    },
    replaced: true,
  },
  {
    name: 'a link in place of the entry',
    make: () => {
      const target = join(scratch(), 'elsewhere');
      writeFileSync(target, entryBytes('legacy'), { mode: 0o600 });
      symlinkSync(target, join(eras, entry));
    },
    replaced: true,
  },
  {
    name: 'a folder others may write to',
    make: () => {
      writeFileSync(join(eras, entry), entryBytes('legacy'), { mode: 0o600 });
      chmodSync(eras, 0o777);
    },
    replaced: false,
  },
  {
    name: 'a link in place of the folder, to one others may write to',
    make: () => {
      rmSync(eras, { recursive: true });
      const target = join(scratch(), 'open-folder');
      mkdirSync(target);
      chmodSync(target, 0o777);
      writeFileSync(join(target, entry), entryBytes('legacy'), { mode: 0o600 });
      symlinkSync(target, eras);
    },
    replaced: false,
  },
  ...(process.geteuid?.() === 0
    ? [
        {
          name: "another user's entry",
          make: () => {
            writeFileSync(join(eras, entry), entryBytes('legacy'), { mode: 0o600 });
            chownSync(join(eras, entry), 4242, 4242);
          },
          replaced: true,
        },
      ]
    : []),
];

describe('attacks on the stored entries', () => {
  test('a valid entry, for comparison: the bridge takes it (one start, the era it names)', async () => {
    forgetAll();
    mkdirSync(eras, { mode: 0o700 });
    writeFileSync(join(eras, entry), entryBytes('legacy'), { mode: 0o600 });
    setEra('modern');
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'legacy' });
    expect(starts()).toBe(1);
  });

  test.each(ATTACKS)('$name: ignored, the bridge probes as without a cache', async ({ make, replaced }) => {
    forgetAll();
    mkdirSync(eras, { mode: 0o700 });
    make();
    const left = lstatSync(join(eras, entry));
    setEra('modern');
    starts();
    expect(await bridgeStart(root)).toStrictEqual({ fixture: 'modern' });
    expect(starts()).toBe(2);
    if (replaced) {
      expect(theEntry()).toMatchObject({ name: entry, era: 'modern' });
      const stat = statSync(join(eras, entry));
      expect(stat.uid).toBe(process.geteuid?.());
      expect(stat.mode & 0o777).toBe(0o600);
    } else {
      // A folder that fails its checks is neither read nor written.
      expect(lstatSync(join(eras, entry))).toMatchObject({ ino: left.ino, mtimeMs: left.mtimeMs });
      expect(JSON.parse(readFileSync(join(eras, entry), 'utf8')).era).toBe('legacy');
    }
    rmSync(eras, { recursive: true, force: true });
  });
});

describe('keys and clearing', () => {
  test('the same command with another environment is another entry, and no value is written out', async () => {
    const secrets = ['alpha-secret-value-4f1c9', 'beta-secret-value-7d2e0'];
    const both = writeConfig({
      mcpServers: Object.fromEntries(
        ['alpha', 'beta'].map((name, index) => [
          name,
          {
            command: process.execPath,
            args: [FIXTURE],
            env: { START_LOG: startLog, ERA_FILE: eraFile, TOKEN: secrets[index] as string },
          },
        ]),
      ),
    });
    const own = join(scratch(), 'keys');
    setEra('modern');
    starts();
    expect(await bridgeStart(own, { namespaces: ['alpha', 'beta'], configFile: both })).toStrictEqual({
      alpha: 'modern',
      beta: 'modern',
    });
    expect(starts()).toBe(4);
    const names = readdirSync(join(own, 'mcp-eras')).filter((name) => !name.startsWith('.'));
    expect(names).toHaveLength(2);
    expect(names).not.toContain(entry);
    // Nothing under the cache root, names or contents, holds a value of the environment.
    const walk = (folder: string): string[] =>
      readdirSync(folder, { withFileTypes: true }).flatMap((found) =>
        found.isDirectory() ? walk(join(folder, found.name)) : [join(folder, found.name)],
      );
    for (const file of walk(own)) {
      const text = `${file}\n${readFileSync(file).toString('latin1')}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
    expect(await bridgeStart(own, { namespaces: ['alpha', 'beta'], configFile: both })).toStrictEqual({
      alpha: 'modern',
      beta: 'modern',
    });
    expect(starts()).toBe(2);
  });

  test('codemode-executor cache clear removes the remembered eras', async () => {
    setEra('modern');
    await bridgeStart(root);
    expect(readdirSync(eras).length).toBeGreaterThan(0);
    const { CODEMODE_CACHE: _, ...env } = process.env;
    const cleared = spawnSync(process.execPath, [BIN, 'cache', 'clear'], {
      encoding: 'utf8',
      env: { ...env, CODEMODE_CACHE_DIR: root },
    });
    expect(cleared).toMatchObject({ status: 0, stderr: '' });
    expect(existsSync(eras)).toBe(false);
  });
});

describe('a bridge whose own folder is gone', () => {
  test('still starts a stdio upstream the config gives no folder, and remembers nothing for it', async () => {
    forgetAll();
    setEra('modern');
    starts();
    const gone = join(root, '..', 'removed-folder');
    expect(await bridgeStart(root, { removedFolder: gone })).toStrictEqual({ fixture: 'modern' });
    // Nothing to key an entry by: the full negotiation, and nothing written.
    expect(starts()).toBe(2);
    expect(existsSync(eras) ? readdirSync(eras).filter((name) => !name.startsWith('.')) : []).toStrictEqual(
      [],
    );
  });
});
