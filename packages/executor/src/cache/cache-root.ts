/**
 * Where this package keeps its caches on disk, and whether it keeps any: a folder of the user's
 * own (XDG_CACHE_HOME, or ~/.cache), never a shared temporary folder, since what a cache holds is
 * read back by this package as its own work (trusted-directory.ts says what is checked before).
 * CODEMODE_CACHE=off turns every cache off; CODEMODE_CACHE_DIR names another folder (the tests'
 * own, an operator's).
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** Set to off (or 0, false, no) to keep nothing on disk. */
export const CACHE_SWITCH_ENV = 'CODEMODE_CACHE';
/** A folder to keep the caches in instead of the user's cache folder. */
export const CACHE_DIR_ENV = 'CODEMODE_CACHE_DIR';
/** The folder's name under XDG_CACHE_HOME or ~/.cache: the package's scope and name. */
export const CACHE_FOLDER_NAME = 'supolka-codemode';

/** The folder under the root that holds pool children's starts (sandbox/setup/cached-start.ts). */
export const START_CACHE_FOLDER = 'start';
/**
 * The folder under the root that holds Node's compile cache, for the commands and the pool's
 * children (compile-cache.ts).
 */
export const COMPILE_CACHE_FOLDER = 'compile';
/** The folder under the root that holds the allowed packages' bundles (docs/packages.md). */
export const PACKAGES_CACHE_FOLDER = 'packages';
/**
 * The folder under the root where the MCP bridge remembers which protocol era each stdio upstream
 * speaks (docs/mcp.md). Named here, though only the bridge writes it, so `cache clear` knows it.
 */
export const MCP_ERAS_CACHE_FOLDER = 'mcp-eras';

/** Whether the environment turns the caches off. */
export function cacheSwitchedOff(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[CACHE_SWITCH_ENV]?.trim().toLowerCase();
  return value === 'off' || value === '0' || value === 'false' || value === 'no';
}

/**
 * The folder every cache of this package lives under, or undefined when the environment turns the
 * caches off or names no home to put them in. XDG_CACHE_HOME counts only when absolute, as the
 * XDG rules say.
 */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (cacheSwitchedOff(env)) return undefined;
  const named = env[CACHE_DIR_ENV];
  if (named !== undefined && named !== '') return resolve(named);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, CACHE_FOLDER_NAME);
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  return home === '' ? undefined : join(home, '.cache', CACHE_FOLDER_NAME);
}
