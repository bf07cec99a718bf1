/**
 * The `cache` option of IsolateExecutor, resolved to the folder one cache lives in: off (`false`,
 * or CODEMODE_CACHE=off with the option left as it is), a folder the caller names, or the user's
 * cache folder (cache-root.ts). The folder is made and checked here, in the caller's process, and a
 * folder that fails its checks turns that cache off with one warning per process saying why: a
 * cache is never worth failing a run over, nor silently missing.
 */
import { join } from 'node:path';
import { COMPILE_CACHE_FOLDER, cacheRoot, START_CACHE_FOLDER } from './cache-root.ts';
import { openTrustedDirectory } from './trusted-directory.ts';

/** Whether to keep caches on disk, and where: true (the default) lets the environment decide. */
export type CacheOption = boolean | { readonly directory: string };

/** The warning's code, so a caller can tell it from others. */
export const CACHE_REFUSED_WARNING = 'CODEMODE_CACHE_REFUSED';

let warned = false;

/**
 * The trusted folder `folder` of the caches `option` selects (made 0700 when missing), or undefined
 * when the caches are off or the folder failed its checks. `quiet` says nothing of a folder that
 * failed: the children's compiled code, whose loss costs a few milliseconds and turns no cache the
 * warning would name off.
 */
export function cacheFolder(
  option: CacheOption | undefined,
  folder: string,
  env: NodeJS.ProcessEnv = process.env,
  { quiet = false }: { readonly quiet?: boolean } = {},
): string | undefined {
  // Where processes have no user ids (Windows) no folder can be shown to be the user's alone: the
  // caches are off there, as the platform's rule rather than a folder's fault, so nothing is said.
  if (option === false || process.geteuid === undefined) return undefined;
  const root = typeof option === 'object' ? option.directory : cacheRoot(env);
  if (root === undefined) return undefined;
  const opened = openTrustedDirectory(join(root, folder), { create: true });
  if ('directory' in opened) return opened.directory.path;
  if (!quiet && !warned) {
    warned = true;
    process.emitWarning(`The cache on disk is off for this process: ${opened.refused}.`, {
      code: CACHE_REFUSED_WARNING,
    });
  }
  return undefined;
}

/**
 * The folders a pool's children keep their start in and Node's compile cache in, for the `cache`
 * option: the compiled code beside the start, and only where the user chose nothing of Node's
 * compile cache for themselves (NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE, which the children
 * inherit: then it is left to Node, and no folder is made for them; compile-cache.ts). `quiet`
 * says nothing of a start folder that failed its checks either: the executor says it once built.
 */
export function childCacheFolders(
  option: CacheOption | undefined,
  env: NodeJS.ProcessEnv = process.env,
  { quiet = false }: { readonly quiet?: boolean } = {},
): { readonly startCache: string | undefined; readonly compileCache?: string | undefined } {
  const startCache = cacheFolder(option, START_CACHE_FOLDER, env, { quiet });
  const chosen = env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined;
  if (startCache === undefined || chosen) return { startCache };
  return { startCache, compileCache: cacheFolder(option, COMPILE_CACHE_FOLDER, env, { quiet: true }) };
}
