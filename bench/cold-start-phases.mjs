// Started by bench/cold-start.ts with the pool children's flags: a pool child's start, phase by phase,
// done as child-start.js and child-entry.js do it but timed between the steps, then one JSON line of
// milliseconds on stdout. argv[2] is a JSON list of the module URLs those two files import (read from
// them by the bench, so the list follows the files); argv[3] the executor's dist folder URL.
// Plain JavaScript, so the process loads no type stripper the figures would carry.
import { createHash } from 'node:crypto';

const sinceStart = performance.now();
const modules = JSON.parse(process.argv[2]);
const dist = process.argv[3];
const phases = { node: sinceStart };
let mark = performance.now();
const lap = (name) => {
  const now = performance.now();
  phases[name] = now - mark;
  mark = now;
};

const addon = await import(new URL('sandbox/setup/engine-addon.js', dist).href);
const problem = await addon.isolatedVmProblem();
if (problem !== undefined) throw new Error(problem);
lap('addon check');
for (const module of modules) await import(module);
lap('import');
const isolate = await import(new URL('sandbox/isolate.js', dist).href);
const runtime = await import(new URL('sandbox/runtime.js', dist).href);
const { Sandbox } = await import(new URL('sandbox/sandbox.js', dist).href);
const { BoundedCodeCache } = await import(new URL('sandbox/modules/code-cache.js', dist).href);
mark = performance.now();
isolate.assertNoNodeSnapshot();
lap('assertNoNodeSnapshot');
const engine = await isolate.assertEngineServesSandbox();
lap('engine probes');
const snapshot = runtime.readRuntimeSnapshot();
lap('snapshot creation');
// What a child handed the snapshot does instead of the two phases above: hash the bytes it was
// sent and copy them into an ExternalCopy V8 restores from.
const bytes = snapshot.copy();
mark = performance.now();
createHash('sha256').update(new Uint8Array(bytes)).digest('hex');
lap('hand-on: hash the bytes');
const { default: ivm } = await import('isolated-vm');
mark = performance.now();
new ivm.ExternalCopy(bytes).release();
lap('hand-on: copy for V8');
let prepared = Promise.withResolvers();
const sandbox = new Sandbox({
  engine,
  codeCache: new BoundedCodeCache(),
  onPrepared: () => prepared.resolve(),
});
await prepared.promise;
lap('first isolate prepared');
prepared = Promise.withResolvers();
const answer = await sandbox.execute({ code: 'async () => 1 + 1' });
if (answer.result !== 2) throw new Error(`the first execution answered ${JSON.stringify(answer)}`);
lap('first execution');
phases.snapshotBytes = bytes.byteLength;
process.stdout.write(`${JSON.stringify(phases)}\n`);
// Ended once the next isolate is prepared: an exit while isolated-vm's thread is still preparing one
// was seen to hang in its thread pool's teardown.
await prepared.promise;
process.exit(0);
