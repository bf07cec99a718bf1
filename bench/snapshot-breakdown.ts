/**
 * Where the runtime snapshot's bytes and an isolate's start go, installer by installer. Started by
 * `tools/run bench`. The runtime's entry (packages/runtime/src/index.ts) is bundled again with some
 * of its installers left out of INSTALLERS (esbuild then drops what nothing else imports), and each
 * variant is made into a snapshot of its own, so each row says what one area adds:
 *
 *   without X      the full runtime less X's installer: the bytes and time X alone accounts for
 *   cumulative     the base (every installer but the five areas below), then each area added
 *
 * The rows measure the runtime bundle alone, without the sandbox's own code, which the real
 * snapshot adds (bench/runtime.ts measures that one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import ivm from 'isolated-vm';
import { sample, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 60);
const root = join(import.meta.dirname, '..');
const entry = join(root, 'packages/runtime/src/index.ts');
const AREAS = ['installStreams', 'installEncoding', 'installUrl', 'installFetch', 'installCrypto'] as const;

/** The runtime bundle with the named installers left out, built as the generator builds it. */
async function bundleWithout(omitted: readonly string[]): Promise<string> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    target: 'es2024',
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [
      {
        name: 'omit-installers',
        setup(plugin) {
          plugin.onLoad({ filter: /runtime\/src\/index\.ts$/ }, () => {
            let text = readFileSync(entry, 'utf8');
            for (const name of omitted) text = text.replace(new RegExp(`^  ${name},$`, 'm'), '');
            return { contents: text, loader: 'ts' };
          });
        },
      },
    ],
  });
  return result.outputFiles[0]?.text ?? '';
}

interface Row {
  readonly name: string;
  readonly source: number;
  readonly snapshot: number;
  readonly create: number;
  readonly heap: number;
}

async function measure(name: string, omitted: readonly string[]): Promise<Row> {
  const source = await bundleWithout(omitted);
  const snapshot = ivm.Isolate.createSnapshot([{ code: source, filename: 'codemode-runtime.js' }]);
  const create = summarize(
    name,
    await sample(iterations, () => {
      const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
      isolate.createContextSync();
      isolate.dispose();
    }),
  );
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  isolate.createContextSync();
  const heap = isolate.getHeapStatisticsSync().used_heap_size;
  isolate.dispose();
  return { name, source: source.length, snapshot: snapshot.copy().byteLength, create: create.median, heap };
}

const bare = summarize(
  'bare',
  await sample(iterations, () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    isolate.createContextSync();
    isolate.dispose();
  }),
);
const full = await measure('full runtime', []);
const rows: Row[] = [full];
for (const area of AREAS) rows.push(await measure(`without ${area}`, [area]));
for (let count = 0; count <= AREAS.length; count++) {
  const added = AREAS.slice(0, count);
  rows.push(await measure(`base${added.map((area) => ` + ${area}`).join('')}`, AREAS.slice(count)));
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
console.log(`\nRuntime snapshot, by installer (Node ${process.version}); bare isolate + context ${bare.median.toFixed(3)} ms
| variant | bundle | snapshot | isolate + context, median | heap used | vs full: snapshot | vs full: time |
| --- | --- | --- | --- | --- | --- | --- |`);
for (const row of rows)
  console.log(
    `| ${row.name} | ${kb(row.source)} | ${kb(row.snapshot)} | ${row.create.toFixed(3)} ms | ${kb(row.heap)} | ${kb(row.snapshot - full.snapshot)} | ${(row.create - full.create).toFixed(3)} ms |`,
  );
