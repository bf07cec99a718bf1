// Runs every benchmark under bench/, each in its own process with --no-node-snapshot and --no-wasm-code-gc (adr/0002),
// and prints their tables. Usage: tools/run bench   (BENCH_ITERATIONS=n for more or fewer samples)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const here = new URL('.', import.meta.url);
const benches = readdirSync(here).filter((file) => file.endsWith('.ts') && file !== 'stats.ts');
let failed = false;
for (const bench of benches) {
  const { status } = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', new URL(bench, here).pathname],
    {
      stdio: 'inherit',
    },
  );
  if (status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
