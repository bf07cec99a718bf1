/**
 * One configuration of an executor in a process of its own, for disk-cache.test.ts: a process
 * starts with nothing bundled, so a bundle it did not make came from the cache on disk. Takes the
 * cache folder (`off` for `cache: false`), the base folder, a JSON list of names and, optionally, a
 * program to run; prints one JSON line: how many packages esbuild ran for in this process, and the
 * program's envelope or the configuration's refusal.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IsolateExecutor } from '@supolka/codemode-executor';

const [cache, base, packages, code] = process.argv.slice(2) as [string, string, string, string | undefined];
// The bundler module the executor loads (its dist, as a user's install has it), for its counter.
const bundler = (await import(pathToFileURL(join(import.meta.dirname, '..', 'dist', 'bundle.js')).href)) as {
  bundlingRuns(): number;
};
const executor = new IsolateExecutor({
  poolSize: 1,
  packages: JSON.parse(packages) as string[],
  packagesBase: base,
  cache: cache === 'off' ? false : { directory: cache },
});
let outcome: unknown;
try {
  await executor.packages();
  outcome = code === undefined ? null : await executor.execute({ code });
} catch (error) {
  outcome = { refused: (error as Error).message };
}
await executor.dispose();
process.stdout.write(`${JSON.stringify({ runs: bundler.bundlingRuns(), outcome })}\n`);
