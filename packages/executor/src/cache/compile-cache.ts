/**
 * Node's module compile cache for this project's commands (issue 28): V8 keeps the code it compiled
 * for each module a command loads, and the next process of the same Node reads it instead of
 * compiling again. Measured on the built commands (importing each command's modules, Node 24, CPU
 * with Node's own start): the executor's main entry about 58 → 49 ms, the server's command about
 * 190 → 160 ms, the MCP bridge's about 230 → 185 ms (they load zod, the MCP SDK, prom-client).
 *
 * The cache follows the rules of every cache here (cache-root.ts, trusted-directory.ts): a folder
 * of the user's own, `compile` under the cache root, checked before Node is told of it, and none
 * at all under CODEMODE_CACHE=off. What it holds reaches V8 as code, as the start cache's snapshot
 * does, so it is trusted as far as the user's own files are; Node checks each entry's checksum and
 * its source's before V8 takes it. The commands turn it on (their bins, before they load anything
 * else), and a library import never does: it does not change how its caller's process compiles. A
 * user who set NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE has chosen, and is left to Node.
 * The pool's children turn it on in the same folder when their executor keeps a start on disk (the `cache`
 * option; pool/child/child-start.ts), before they load their bundle: they are this package's own
 * processes, and compiling the bundle was the largest part of a child's start that is its own
 * (docs/pool.md, "Cold start").
 */
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { COMPILE_CACHE_FOLDER, cacheRoot } from './cache-root.ts';
import { openTrustedDirectory } from './trusted-directory.ts';

export { COMPILE_CACHE_FOLDER };

/**
 * Node writes the cache when the process exits; a server or a bridge may run for days and end with
 * SIGKILL, so what its start compiled is written this long after the cache is turned on.
 */
const FLUSH_AFTER = 2000;

/**
 * Turns Node's compile cache on for this process, in the folder of the user's caches; answers that
 * folder, or undefined when it is not on (an older Node, the switch, a folder refused, the user's own
 * choice). Never throws: a cache never fails a command.
 */
export function enableCommandCompileCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const root = cacheRoot(env);
    if (root === undefined) return undefined;
    if ('refused' in openTrustedDirectory(root, { create: true })) return undefined;
    const folder = join(root, COMPILE_CACHE_FOLDER);
    const enabled = enableCompileCacheIn(folder, { create: true }, env);
    if (enabled === undefined) return undefined;
    setTimeout(() => {
      module.flushCompileCache?.();
      privateNodeFolders(enabled);
    }, FLUSH_AFTER).unref();
    return enabled;
  } catch {
    return undefined;
  }
}

/**
 * Writes what this process compiled so far, when its compile cache is on (Node writes it at exit
 * otherwise). A command calls it once it loaded what it runs with and waits for its pool's child:
 * the write, about 10 ms when the cache was empty, then runs beside the child's start rather than
 * on the command's way out. Never throws.
 */
export function flushCompiledCode(): void {
  try {
    module.flushCompileCache?.();
  } catch {
    // A cache never fails a command.
  }
}

/**
 * Turns Node's compile cache on for this process in `folder` once it passes the trust checks (made
 * first when `create` says so); answers the folder turned on, or undefined when it is not (an older
 * Node, a folder refused, the user's own NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE). Never
 * throws. Node writes what it compiled when the process exits.
 */
export function enableCompileCacheIn(
  folder: string,
  { create }: { readonly create: boolean },
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  try {
    if (typeof module.enableCompileCache !== 'function') return undefined;
    if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined)
      return undefined;
    const opened = openTrustedDirectory(folder, { create });
    if ('refused' in opened) return undefined;
    // The real path the checks were made on: Node opens every entry through the path it is given,
    // for the life of the process, and a link along the given one could be pointed elsewhere later.
    // Node makes every folder missing on the way with the process's umask: a folder removed since
    // the check (`cache clear` between a parent's check and its child's) comes back the user's alone.
    const umask = process.umask(0o077);
    let enabled: ReturnType<typeof module.enableCompileCache>;
    try {
      enabled = module.enableCompileCache(opened.directory.path);
    } finally {
      process.umask(umask);
    }
    if (enabled.status !== module.constants.compileCacheStatus.ENABLED) return undefined;
    privateNodeFolders(opened.directory.path);
    return opened.directory.path;
  } catch {
    return undefined;
  }
}

/**
 * The folders Node made per Node build inside the cache folder `folder`, links not followed, each
 * of this user's made 0700 first. Node makes them with the process's umask (0775 under umask 002):
 * no one else can reach them through the 0700 folder around them, but the cache's own checks
 * (`cache clear`) refuse a folder others may write to. None when it cannot be read.
 */
export function privateNodeFolders(folder: string): string[] {
  const user = process.geteuid?.();
  try {
    return readdirSync(folder)
      .map((name) => join(folder, name))
      .filter((path) => {
        const stat = lstatSync(path);
        if (!stat.isDirectory()) return false;
        if (stat.uid === user && (stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
        return true;
      });
  } catch {
    return [];
  }
}
