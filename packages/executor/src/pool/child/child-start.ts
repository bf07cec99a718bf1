/**
 * Where the pool's child process starts: it makes sure isolated-vm can serve before anything that
 * imports it loads. Loaded statically, an addon that cannot load (a binary built for another Node,
 * none at all) ends the process at import with Node's text, and the pool could quote no more than
 * that; a release outside the supported range might load and misbehave. So the check comes first
 * and, when it fails, writes one line naming the cause and the fix (ADDON_LINE, which the pool
 * quotes: exit-cause.ts) and ends. Otherwise the child proper (child-entry.ts) runs.
 *
 * Started by pool/child-handle.ts as `node --no-node-snapshot child/child-start settings`.
 */
import { enableCompileCacheIn } from '../../cache/compile-cache.ts';
import { isolatedVmProblem } from '../../sandbox/setup/engine-addon.ts';
import { ADDON_LINE } from '../exit-cause.ts';
import { parseSettings } from '../settings.ts';

/**
 * Node's compile cache, in the folder the settings name (the executor keeps a start on disk), for
 * every module loaded from here on: the child proper, about 350 KB that V8 would otherwise compile
 * at every start (cache/compile-cache.ts). Settings that do not parse are child-entry.ts's to report.
 */
function turnOnCompileCache(): void {
  let folder: string | undefined;
  try {
    folder = parseSettings(process.argv[2]).compileCache;
  } catch {
    return;
  }
  if (folder !== undefined) enableCompileCacheIn(folder, { create: false });
}

const problem = await isolatedVmProblem();
if (problem === undefined) {
  turnOnCompileCache();
  await import('./child-entry.ts');
} else {
  process.stderr.write(`${ADDON_LINE}${problem}\n`, () => process.exit(1));
}
