/**
 * The process's bundles kept on disk between processes (the executor's docs/packages.md, "What is
 * bundled, and how"), so a CLI run, a server's replica or the MCP bridge a client spawns takes the
 * bundle the last process made instead of running esbuild again. The folder is the executor's
 * trusted cache folder (its cache/trusted-directory.ts, handed in by the executor): this package
 * only names, reads and writes entries in it, so the folder's rules stay in one place.
 *
 * An entry is one package's bundle and the list of every file its build read, with each file's
 * SHA-256 (bundle-cache.ts, fingerprint). Its name is a hash of what the build was asked and of
 * the bundler itself (esbuild's version, this package's version and code, the CommonJS lexer, the
 * options every build takes), never a package's version number; it is used only when its header
 * names that key, its body hashes to the digest beside it, and every listed file still hashes the
 * same at the same real path. Anything else (no entry, another build's, a damaged one, a changed
 * file, a read or write that fails) is a miss: the package is bundled again and its entry replaced.
 *
 * The file: one line of JSON (the format, the key, the digest of the rest), then the body's JSON.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundledPackage } from '@supolka/codemode-executor';
import { version as esbuildVersion } from 'esbuild';
import type { Fingerprints } from './bundle-cache.ts';

/**
 * The folder entries live in, as the executor's trusted folder offers it: `read` answers the
 * entry's bytes, a refusal, or undefined when there is none; `write` replaces an entry whole.
 */
export interface DiskFolder {
  read(
    name: string,
    limit: number,
  ): { readonly bytes: Uint8Array } | { readonly refused: string } | undefined;
  write(name: string, parts: readonly Uint8Array[]): boolean;
  evict(bounds: { readonly maxEntries: number; readonly maxBytes: number }, keep?: string): void;
}

/** Bumped when the file's layout changes: an entry of another layout is another key. */
const FORMAT = 1;
/** One entry's bytes at most: a script at PACKAGE_SIZE_LIMIT characters, mostly ASCII, and its file list. */
export const ENTRY_LIMIT = 32 * 1024 * 1024;
/** What the folder keeps: past either bound the least recently used entries go. */
export const DISK_CACHE_BOUNDS = { maxEntries: 64, maxBytes: 128 * 1024 * 1024 } as const;
const NEWLINE = 0x0a;

let identity: string | undefined;

/** The bundler as a build depends on it: esbuild's version, this package's version and code, the lexer. */
function bundlerIdentity(): string {
  if (identity !== undefined) return identity;
  const hash = createHash('sha256');
  const require = createRequire(import.meta.url);
  const own = dirname(fileURLToPath(import.meta.url));
  const manifest = JSON.parse(readFileSync(join(own, '..', 'package.json'), 'utf8')) as { version?: unknown };
  hash.update(JSON.stringify([esbuildVersion, manifest.version]));
  // The code, not only the version: a checkout's build changes without its version changing.
  for (const name of readdirSync(own).sort()) {
    if (/\.[cm]?[jt]s$/.test(name)) hash.update(name).update(readFileSync(join(own, name)));
  }
  hash.update(readFileSync(require.resolve('cjs-module-lexer')));
  identity = hash.digest('hex');
  return identity;
}

/** The entry's name for the build asked `request` (the in-process cache's key) with `options`. */
export function entryKey(request: string, options: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, bundlerIdentity(), options, request]))
    .digest('hex');
}

const entryName = (key: string) => `${key}.bundle`;

/** The bundle kept under `key` for the package `name`, with its files, when the entry passes its checks. */
export function readKept(
  folder: DiskFolder,
  key: string,
  name: string,
): { bundled: BundledPackage; files: Fingerprints } | undefined {
  const read = folder.read(entryName(key), ENTRY_LIMIT);
  if (read === undefined || 'refused' in read) return undefined;
  const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
  const end = bytes.indexOf(NEWLINE);
  if (end < 0) return undefined;
  const header = JSON.parse(bytes.toString('utf8', 0, end)) as Record<string, unknown> | null;
  const body = bytes.subarray(end + 1);
  if (header?.format !== FORMAT || header.key !== key) return undefined;
  if (header.digest !== createHash('sha256').update(body).digest('hex')) return undefined;
  const { files, bundled } = JSON.parse(body.toString('utf8')) as { files?: unknown; bundled?: unknown };
  if (!Array.isArray(files) || !files.every(isPair) || !isBundled(bundled, name)) return undefined;
  return { bundled, files: new Map(files) };
}

/** Keeps `bundled` and its files under `key`, then lets the oldest entries go past the bounds. */
export function keep(folder: DiskFolder, key: string, bundled: BundledPackage, files: Fingerprints): void {
  const body = Buffer.from(JSON.stringify({ files: [...files], bundled }));
  const digest = createHash('sha256').update(body).digest('hex');
  const header = Buffer.from(`${JSON.stringify({ format: FORMAT, key, digest })}\n`);
  if (header.length + body.length > ENTRY_LIMIT) return;
  const name = entryName(key);
  if (folder.write(name, [header, body])) folder.evict(DISK_CACHE_BOUNDS, name);
}

function isPair(value: unknown): value is [string, string] {
  return (
    Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string'
  );
}

/** The bundle's shape for the package `name`; the executor checks the whole bundle again (checkBundle). */
function isBundled(value: unknown, name: string): value is BundledPackage {
  if (typeof value !== 'object' || value === null) return false;
  const { name: named, version, source, requires, subpaths } = value as Record<string, unknown>;
  return (
    named === name &&
    typeof version === 'string' &&
    typeof source === 'string' &&
    Array.isArray(requires) &&
    requires.every((required) => typeof required === 'string') &&
    typeof subpaths === 'object' &&
    subpaths !== null
  );
}
