/**
 * Bundles configurations in a process of its own, for attacks.test.ts: a package built to crash
 * esbuild, or the host's bundling step with it, must cost the test runner nothing but this process.
 * Takes the base folder and a JSON list of configurations (each a list of names), bundles them one
 * after another in this one process, and prints one JSON line for each: what it offers, or the
 * refusal's class and sentence. A configuration after a refused one shows the process still bundles.
 */
import { bundlePackages } from '../src/index.ts';

const [base, configurations] = process.argv.slice(2) as [string, string];
for (const packages of JSON.parse(configurations) as string[][]) {
  try {
    const bundle = await bundlePackages({ packages, base });
    const offered = bundle.packages.map(({ name, subpaths }) => [name, Object.keys(subpaths).length]);
    process.stdout.write(`${JSON.stringify({ offered })}\n`);
  } catch (error) {
    const { name, message } = error as Error;
    process.stdout.write(`${JSON.stringify({ refused: { name, message } })}\n`);
  }
}
