/**
 * Runtime snapshot benchmark: what the Web runtime costs every isolate. Started by `tools/run bench`.
 *
 *   bundle, snapshot        bytes of RUNTIME_SOURCE and of the startup snapshot made from it
 *   isolate + context       restoring an isolate from the snapshot and creating its context
 *   prepared isolate        the same plus the sandbox's preparation (__prepareSandbox)
 *   memory per idle isolate heap used by a prepared isolate, from V8's heap statistics
 *
 * Baseline: a bare isolate (no snapshot) + context, measured in the same run. The issue's targets:
 * at most 8 ms to create an isolate + context and at most 3.5 MB per idle isolate, full runtime.
 */
import ivm from 'isolated-vm';
import { RUNTIME_SOURCE, readRuntimeSnapshot } from '../packages/executor/src/sandbox/runtime.ts';
import { prepareIsolate } from '../packages/executor/src/sandbox/setup/prepared-isolate.ts';
import { printTable, record, sample, single, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
const snapshot = readRuntimeSnapshot();

const bare = summarize(
  'bare isolate + context (no snapshot)',
  await sample(iterations, () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    isolate.createContextSync();
    isolate.dispose();
  }),
);
const restored = summarize(
  'isolate + context from the runtime snapshot',
  await sample(iterations, () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
    isolate.createContextSync();
    isolate.dispose();
  }),
);
const prepared = summarize(
  'prepared isolate (snapshot + context + __prepareSandbox)',
  await sample(iterations, () => prepareIsolate({ memoryLimit: 128 }).handle.isolate.dispose()),
);

const heap = (isolate: ivm.Isolate) => isolate.getHeapStatisticsSync().used_heap_size / (1024 * 1024);
const bareIsolate = new ivm.Isolate({ memoryLimit: 128 });
bareIsolate.createContextSync();
const preparedIsolate = prepareIsolate({ memoryLimit: 128 });

printTable(`Runtime snapshot (Node ${process.version})`, [
  { summary: bare },
  { summary: restored, baseline: bare, target: '≤ 8 ms' },
  { summary: prepared, baseline: restored },
]);
console.log(`\n| measurement | value | target |
| --- | --- | --- |
| runtime bundle | ${(RUNTIME_SOURCE.length / 1024).toFixed(0)} KB | |
| startup snapshot | ${(snapshot.copy().byteLength / (1024 * 1024)).toFixed(2)} MB | |
| heap used, bare isolate | ${heap(bareIsolate).toFixed(2)} MB | |
| heap used, prepared idle isolate | ${heap(preparedIsolate.handle.isolate).toFixed(2)} MB | ≤ 3.5 MB |`);
// For the targets table of bench/run.mjs.
record('runtime.bare', bare);
record('runtime.restored', restored);
record('runtime.snapshotBytes', single('startup snapshot', snapshot.copy().byteLength), 'bytes');
record(
  'runtime.preparedHeap',
  single(
    'heap used, prepared idle isolate',
    preparedIsolate.handle.isolate.getHeapStatisticsSync().used_heap_size,
  ),
  'bytes',
);
bareIsolate.dispose();
preparedIsolate.handle.isolate.dispose();
