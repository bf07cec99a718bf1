/**
 * A pool child's side of the start cache on disk (docs/pool.md, "The start cache on disk"): a child
 * that was handed no start looks for one an earlier process's child kept, and takes it through the
 * same checks as a start handed on (hand-on-start.ts); a child that made its own keeps it there for
 * the next process, before any program runs in it. Either way a folder or an entry that fails its
 * checks, or a disk that fails, leaves the child starting as it would without a cache.
 */
import { openTrustedDirectory, type TrustedDirectory } from '../../cache/trusted-directory.ts';
import type { EngineReport } from '../../sandbox/isolate.ts';
import { readCachedStart, startToKeep, writeCachedStart } from '../../sandbox/setup/cached-start.ts';
import type { HandedSnapshot } from '../../sandbox/setup/handed-snapshot.ts';
import { startFromHandOn } from './hand-on-start.ts';

/** The folder the settings name, when it still passes its checks in this process. */
export function startCacheFolder(path: string | undefined): TrustedDirectory | undefined {
  if (path === undefined) return undefined;
  const opened = openTrustedDirectory(path, { create: false });
  return 'directory' in opened ? opened.directory : undefined;
}

/**
 * The engine report to serve by, the cached snapshot now this process's own; why the entry was
 * refused; or undefined when there is none. Taken, `assertNoNodeSnapshot` has run (startFromHandOn).
 */
export function startFromCache(
  folder: TrustedDirectory,
): { readonly engine: EngineReport } | { readonly refused: string } | undefined {
  const read = readCachedStart(folder);
  if (read === undefined || 'refused' in read) return read;
  const { key, digest, check, bytes, engine } = read.start;
  return startFromHandOn({
    key,
    digest,
    check,
    snapshot: bytes,
    engine: { ...engine, fallbacks: [...engine.fallbacks] },
  });
}

/**
 * What a child keeps of its own snapshot, made ready (its disk key, its bytes and their digest) while
 * its probes run on the engine's threads, so their wait hides the work.
 */
export function prepareKeep(): HandedSnapshot | undefined {
  try {
    return startToKeep();
  } catch {
    return undefined;
  }
}

/** Keeps this child's own start in `folder`; a failure is the cache's, never the child's. */
export function keepStart(
  folder: TrustedDirectory,
  engine: EngineReport,
  own: HandedSnapshot | undefined,
): void {
  try {
    writeCachedStart(folder, engine, own);
  } catch {
    // writeCachedStart answers false for what it foresees; nothing else may fail a start either.
  }
}
