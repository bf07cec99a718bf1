/**
 * `codemode-executor cache dir|clear|prepare`: where this package keeps what it caches on disk, a
 * way to remove it all, and a way to fill the start cache ahead of the first real process
 * (docs/pool.md, "The start cache on disk"; cache-prepare.ts). Clearing and preparing go through the
 * same trust checks as the caches themselves: a folder another user could have written to is left
 * alone, and only files directly inside this package's cache folders (start, packages, compile and
 * the per-Node folders Node keeps inside it, and mcp-eras, the MCP bridge's) are removed, whatever
 * else the root holds.
 */
import { existsSync, lstatSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  CACHE_SWITCH_ENV,
  cacheRoot,
  cacheSwitchedOff,
  MCP_ERAS_CACHE_FOLDER,
  PACKAGES_CACHE_FOLDER,
  START_CACHE_FOLDER,
} from '../cache/cache-root.ts';
import { COMPILE_CACHE_FOLDER, privateNodeFolders } from '../cache/compile-cache.ts';
import { openTrustedDirectory } from '../cache/trusted-directory.ts';
import { UsageError } from './args.ts';
import { prepareStart } from './cache-prepare.ts';
import type { Output } from './run.ts';

export const CACHE_USAGE = `Usage: codemode-executor cache dir      print the folder the caches are kept in
       codemode-executor cache clear    remove everything cached there
       codemode-executor cache prepare  make a pool child's start now and keep it there

The pool's children keep the runtime snapshot and the engine report they make, the executor the
allowed packages' bundles, the commands the code Node compiled for them, and the MCP bridge the
protocol era of each stdio server it starts, in a folder of the user's own, so the next process
starts without making them again: $XDG_CACHE_HOME/supolka-codemode, or ~/.cache/supolka-codemode.
CODEMODE_CACHE_DIR names another folder; CODEMODE_CACHE=off keeps nothing on disk. A folder that
another user could write to is never used, cleared or prepared.

prepare starts one pool child, which keeps its start, then proves the entry with a second child
that must start from it: run it where the processes that use it will run (an image's build, after
an install), as their user, with their Node and their NODE_OPTIONS, or they will not take it.

Options:
  -h, --help          this text
`;

export async function cacheCli(
  argv: readonly string[],
  output: Output,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [action, ...rest] = argv;
  if (action === '-h' || action === '--help' || rest.includes('-h') || rest.includes('--help')) {
    output.out(CACHE_USAGE);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`cache ${action} takes no arguments; got ${rest.join(' ')}.`);
  // The folder the caches would be in: the switch stops their use, not their removal.
  const root = cacheRoot({ ...env, [CACHE_SWITCH_ENV]: undefined });
  switch (action) {
    case 'dir':
      if (root === undefined) return noHome(output);
      output.out(`${root}\n`);
      return 0;
    case 'clear':
      return clear(root, output);
    case 'prepare':
      return prepare(root, output, env);
    case undefined:
      throw new UsageError('cache needs an action: dir, clear or prepare.');
    default:
      throw new UsageError(`Unknown cache action '${action}'; the actions are dir, clear and prepare.`);
  }
}

function noHome(output: Output): number {
  output.err('codemode-executor cache: no home folder to keep caches in; set CODEMODE_CACHE_DIR.\n');
  return 1;
}

/** A folder failed its trust checks: it is neither used, nor cleared, nor prepared. */
function leftAlone(reason: string, output: Output): number {
  output.err(`codemode-executor cache: left alone: ${reason}.\n`);
  return 1;
}

/**
 * Checks the folders as clearing does (the root itself the user's own, made 0700 when missing), then
 * the start folder as the executor makes and checks it, before any child starts: a refused folder
 * is said here in one sentence, not as the executor's process warning.
 */
async function prepare(root: string | undefined, output: Output, env: NodeJS.ProcessEnv): Promise<number> {
  // Where the switch keeps nothing on disk, a prepared start would never be read.
  if (cacheSwitchedOff(env)) {
    output.err(
      `codemode-executor cache: ${CACHE_SWITCH_ENV}=${env[CACHE_SWITCH_ENV]} keeps nothing on disk, so no start is prepared; unset it to prepare one.\n`,
    );
    return 1;
  }
  if (root === undefined) return noHome(output);
  for (const folder of [root, join(root, START_CACHE_FOLDER)]) {
    const opened = openTrustedDirectory(folder, { create: true });
    if ('refused' in opened) return leftAlone(opened.refused, output);
  }
  return prepareStart(root, output);
}

function clear(root: string | undefined, output: Output): number {
  if (root === undefined || !existsSync(root)) {
    output.out(`Nothing cached${root === undefined ? '' : ` in ${root}`}.\n`);
    return 0;
  }
  const opened = openTrustedDirectory(root, { create: false });
  if ('refused' in opened) return leftAlone(opened.refused, output);
  let files = 0;
  let bytes = 0;
  /**
   * Removes the files directly inside the folder at `path`, once it passes its checks, and those of
   * the folders inside it when `perNode` (Node's compile cache, cache/compile-cache.ts, keeps its
   * files a folder deeper, one per Node).
   */
  const clearFolder = (path: string, perNode: boolean) => {
    const folder = openTrustedDirectory(path, { create: false });
    if ('refused' in folder) {
      output.err(`codemode-executor cache: left alone: ${folder.refused}.\n`);
      return;
    }
    if (perNode) for (const inner of privateNodeFolders(folder.directory.path)) clearFolder(inner, false);
    const cleared = folder.directory.clear();
    files += cleared.files;
    bytes += cleared.bytes;
  };
  // Only the folders this package keeps: the root may be any folder CODEMODE_CACHE_DIR names.
  for (const name of CACHE_FOLDERS) {
    const path = join(opened.directory.path, name);
    if (isFolder(path)) clearFolder(path, name === COMPILE_CACHE_FOLDER);
  }
  try {
    rmdirSync(opened.directory.path);
  } catch {
    // Something else is in it: not this package's to remove.
  }
  output.out(`Removed ${files} file${files === 1 ? '' : 's'} (${bytes} bytes) from ${root}.\n`);
  return 0;
}

/** The cache folders under the root, each this package's own. */
const CACHE_FOLDERS = [
  START_CACHE_FOLDER,
  PACKAGES_CACHE_FOLDER,
  COMPILE_CACHE_FOLDER,
  MCP_ERAS_CACHE_FOLDER,
];

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
