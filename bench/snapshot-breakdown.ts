/**
 * Where the runtime snapshot's bytes, an isolate's start and its heap go, area by area. Started by
 * `tools/run bench`. The runtime's entry (packages/runtime/src/index.ts) is bundled again with the
 * areas not yet added left out (their installers and their imports, so esbuild drops their
 * modules), and each variant is made into a snapshot of its own. Areas import each other (the text
 * streams are streams, fetch parses URLs and encodes text), so they are added in an order where
 * each needs only those before it, and each row's difference to the one before is what that area
 * adds. The first row is a snapshot of an empty script: V8's own context, which no diet removes.
 *
 * The rows measure the runtime bundle alone, without the sandbox's own code, which the real
 * snapshot adds (bench/runtime.ts measures that one). Times are CPU time per isolate + context
 * (every thread of the process), which a machine shared with other work disturbs less than wall time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import ivm from 'isolated-vm';
import { summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 60);
const root = join(import.meta.dirname, '..');
const entry = join(root, 'packages/runtime/src/index.ts');
/** Each area: its installer, and the import lines and uses index.ts has for it. */
const AREAS = [
  { name: 'streams', cut: [/^ {2}installStreams,$/m, /^import \{ installStreams \}.*$/m] },
  { name: 'encoding', cut: [/^ {2}installEncoding,$/m, /^import \{ installEncoding \}.*$/m] },
  { name: 'URL', cut: [/^ {2}installUrl,$/m, /^import \{ installUrl \}.*$/m] },
  {
    name: 'fetch, Blob, FormData',
    cut: [
      /^ {2}installFetch,$/m,
      /^import \{ installFetch \}.*$/m,
      /^import \{ isResponse, requestFromWire, responseToWire \}.*$/m,
      /^ {4}http: \{ requestFromWire, responseToWire, isResponse \},$/m,
    ],
  },
  { name: 'crypto', cut: [/^ {2}installCrypto,$/m, /^import \{ installCrypto \}.*$/m] },
] as const;

/**
 * The runtime bundle with the given areas left out, built as the runtime's build
 * (packages/runtime/scripts/build.ts) builds it.
 */
async function bundleWithout(omitted: readonly (typeof AREAS)[number][]): Promise<string> {
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
            for (const area of omitted)
              for (const cut of area.cut) {
                if (!cut.test(text)) throw new Error(`index.ts no longer has ${cut}: update this benchmark`);
                text = text.replace(cut, '');
              }
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

/** CPU milliseconds of each call of `run`, after a warm-up. */
function cpuSamples(run: () => void): number[] {
  for (let index = 0; index < 10; index++) run();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  return samples;
}

function measure(name: string, source: string): Row {
  const snapshot = ivm.Isolate.createSnapshot([{ code: source, filename: 'codemode-runtime.js' }]);
  const create = summarize(
    name,
    cpuSamples(() => {
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

const rows: Row[] = [measure('empty script (V8 alone)', '')];
for (let count = 0; count <= AREAS.length; count++) {
  const added = AREAS.slice(0, count).map((area) => area.name);
  rows.push(measure(count === 0 ? 'base' : `+ ${added.at(-1)}`, await bundleWithout(AREAS.slice(count))));
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
console.log(`\nRuntime snapshot, area by area (Node ${process.version}), each row adding to the one above
| variant | bundle | snapshot | isolate + context, CPU median | heap used | added: snapshot | added: heap | added: CPU |
| --- | --- | --- | --- | --- | --- | --- | --- |`);
rows.forEach((row, index) => {
  const previous = rows[index - 1];
  const added = (value: number, other: number | undefined, unit: (n: number) => string) =>
    other === undefined ? '—' : unit(value - other);
  console.log(
    `| ${row.name} | ${kb(row.source)} | ${kb(row.snapshot)} | ${row.create.toFixed(3)} ms | ${kb(row.heap)} | ${added(row.snapshot, previous?.snapshot, kb)} | ${added(row.heap, previous?.heap, kb)} | ${added(row.create, previous?.create, (n) => `${n.toFixed(3)} ms`)} |`,
  );
});
