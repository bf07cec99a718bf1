// Loaded into a pool child by bench/cold-start.ts (`--import`): it notes every module the child
// loads (ES modules and CommonJS alike, through Node's in-thread hooks) and on SIGUSR2 writes their
// URLs to BENCH_PROBE_DIR/<pid>-modules.json, so the bench can say what a child at rest has loaded.
// Plain JavaScript, so the child loads no type stripper for it.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { join } from 'node:path';

const loaded = new Set();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
process.on('SIGUSR2', () => {
  writeFileSync(
    join(process.env.BENCH_PROBE_DIR ?? '.', `${process.pid}-modules.json`),
    JSON.stringify([...loaded]),
  );
});
