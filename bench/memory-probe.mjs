// Loaded into a pool child by bench/memory-breakdown.ts (`--import`): on SIGUSR2 it writes the
// child's own V8 heap figures to the file BENCH_PROBE_DIR/<pid>.json, which only the process itself
// can read. Plain JavaScript, so the child loads no type stripper for it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import v8 from 'node:v8';

process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(
    v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size]),
  );
  const usage = process.memoryUsage();
  const report = { heapTotal: usage.heapTotal, external: usage.external, newSpace: spaces.new_space ?? 0 };
  writeFileSync(join(process.env.BENCH_PROBE_DIR ?? '.', `${process.pid}.json`), JSON.stringify(report));
});
