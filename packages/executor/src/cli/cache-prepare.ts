/**
 * `codemode-executor cache prepare`: makes a pool child's start now and keeps it in the start cache
 * on disk (docs/pool.md, "The start cache on disk"), so the first child of every later process of
 * this build starts warm. Meant for an image's build (each replica of a server image otherwise starts
 * with an empty cache and pays the snapshot and the probes) and for the moment after an install.
 *
 * The start is made the way the executor makes it, by the one child of an IsolateExecutor: this
 * process never loads isolated-vm, and the entry's key is the children's (their flags are not this
 * process's). It is then proven by a second child, which must take it from the disk through every
 * check a child makes and say so in its health report (`snapshot: 'cached'`); a first child that
 * already started from it proved it itself, and the command says it was already prepared.
 */
import { join } from 'node:path';
import { START_CACHE_FOLDER } from '../cache/cache-root.ts';
import { IsolateExecutor } from '../executor/isolate-executor.ts';
import type { StartReport } from '../pool/messages/health.ts';
import type { Output } from './run.ts';

/** How one child of an executor over the cache at `root` started, or why no child could. */
async function startOneChild(
  root: string,
): Promise<{ readonly start: StartReport | undefined } | { readonly failed: string }> {
  let start: StartReport | undefined;
  const executor = new IsolateExecutor({
    poolSize: 1,
    cache: { directory: root },
    onPoolEvent: (event) => {
      if (event.type === 'healthy') start = event.start;
    },
  });
  try {
    // Resolves at the child's first healthy answer, which it gives only once its start is kept.
    await executor.engine();
    return { start };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  } finally {
    await executor.dispose();
  }
}

/**
 * Prepares the start in the cache at `root`, whose folders passed their checks; 0 once a child took
 * it from the disk, 1 when no child started or none would take it.
 */
export async function prepareStart(root: string, output: Output): Promise<number> {
  const folder = join(root, START_CACHE_FOLDER);
  const first = await startOneChild(root);
  if ('failed' in first) {
    output.err(`codemode-executor cache: no start was prepared: ${first.failed}\n`);
    return 1;
  }
  if (first.start?.snapshot === 'cached') {
    output.out(`Already prepared: a child started from this build's start in ${folder}.\n`);
    return 0;
  }
  const second = await startOneChild(root);
  if ('failed' in second) {
    output.err(
      `codemode-executor cache: the start was made, but no child started to prove it: ${second.failed}\n`,
    );
    return 1;
  }
  if (second.start?.snapshot !== 'cached') {
    const why = second.start?.cacheRefused;
    output.err(
      `codemode-executor cache: the start was made, but a second child did not take it from ${folder}${why === undefined ? ' (nothing was kept there)' : `: ${why}`}.\n`,
    );
    return 1;
  }
  const replaced = first.start?.cacheRefused;
  output.out(
    `Prepared: this build's start is kept in ${folder}${replaced === undefined ? '' : `, in place of an entry that was refused (${replaced})`}, and a second child started from it.\n`,
  );
  return 0;
}
