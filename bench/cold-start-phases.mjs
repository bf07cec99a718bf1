// Started by bench/cold-start.ts with the pool children's flags: a pool child's start, phase by phase,
// done as child-start.js and child-entry.js do it but timed between the steps, then one JSON line of
// milliseconds on stdout. argv[2] is JSON: `modules`, the URLs those two files import (read from them
// by the bench, so the list follows the files); `dist`, the executor's dist folder URL; `save`, a
// path to write this child's own start to as the `handOn` message it would send; `handed`, such a
// path to start from instead, as a child the parent handed that message to (a build that has no
// hand-on ignores both); `keep`, a start cache folder to keep this child's own start in, as a child
// that made its own does (docs/pool.md, "The start cache on disk"); `cached`, such a folder to start
// from instead (a build without the cache ignores both). Plain JavaScript, so the process loads no type stripper the figures carry.
import { readFileSync, writeFileSync } from 'node:fs';

const sinceStart = performance.now();
const { modules, dist, save, handed, keep, cached } = JSON.parse(process.argv[2]);
const phases = { node: sinceStart };
let mark = performance.now();
const lap = (name) => {
  const now = performance.now();
  phases[name] = now - mark;
  mark = now;
};
const distModule = (path) => import(new URL(path, dist).href);
// As a pool child's channel does: a handle that keeps the event loop alive while an isolate thread
// waits for this thread to run a task (isolated-vm's tasks alone do not keep it alive).
setInterval(() => {}, 60_000);

const addon = await distModule('sandbox/setup/engine-addon.js');
const problem = await addon.isolatedVmProblem();
if (problem !== undefined) throw new Error(problem);
lap('addon check');
for (const module of modules) await import(module);
lap('import');
const isolate = await distModule('sandbox/isolate.js');
const runtime = await distModule('sandbox/runtime.js');
const { Sandbox } = await distModule('sandbox/sandbox.js');
const { BoundedCodeCache } = await distModule('sandbox/modules/code-cache.js');
const handOn = await distModule('sandbox/setup/handed-snapshot.js').catch(() => undefined);
const wire = handOn ? await distModule('pool/messages/wire.js') : undefined;
const handing = await distModule('pool/child/hand-on-start.js').catch(() => undefined);
const caching = await distModule('pool/child/cache-start.js').catch(() => undefined);

let engine;
if (cached !== undefined && caching !== undefined) {
  mark = performance.now();
  const folder = caching.startCacheFolder(cached);
  if (folder === undefined) throw new Error(`the cache folder ${cached} was refused`);
  lap('cache: check the folder');
  const started = caching.startFromCache(folder);
  if (started === undefined || !('engine' in started))
    throw new Error(`the cached start was not taken: ${started?.refused ?? 'none there'}`);
  engine = started.engine;
  lap('cache: assertNoNodeSnapshot, read, check and adopt');
} else if (handed !== undefined && handing !== undefined && wire !== undefined) {
  // The message arrives while the child imports: reading the file is not part of the start.
  const text = readFileSync(handed, 'utf8');
  mark = performance.now();
  const decoded = wire.decodeHotPoolMessage(text);
  if (decoded.ok !== true) throw new Error('the handOn message did not decode on the hot path');
  lap('handOn: decode the message');
  const started = handing.startFromHandOn(decoded.message);
  if (!('engine' in started)) throw new Error(`the start handed on was refused: ${started.refused}`);
  engine = started.engine;
  lap('handOn: assertNoNodeSnapshot, check and adopt');
} else if (handOn === undefined) {
  // The child before the hand-on: the probes, then the snapshot, one after the other.
  mark = performance.now();
  isolate.assertNoNodeSnapshot();
  lap('assertNoNodeSnapshot');
  engine = await isolate.assertEngineServesSandbox();
  lap('engine probes');
  runtime.readRuntimeSnapshot();
  lap('snapshot creation');
} else {
  // The child with the hand-on: the snapshot made while the probes run on the engine's threads,
  // then, asked for its start, the commitment (the snapshot's key and digest) its first healthy
  // answer carries.
  mark = performance.now();
  isolate.assertNoNodeSnapshot();
  lap('assertNoNodeSnapshot');
  const probed = isolate.assertEngineServesSandbox();
  runtime.readRuntimeSnapshot();
  lap('snapshot creation');
  // As a child that keeps its start does: made ready while the probes run.
  const keeping = keep !== undefined && caching?.prepareKeep ? caching.prepareKeep() : undefined;
  if (keeping !== undefined) lap('cache: the start made ready to keep, beside the probes');
  engine = await probed;
  lap('engine probes (what the snapshot did not hide)');
  // As the child does: its commitment only (a build before the CRC-32 had none of its own).
  if (handOn.ownCommitment) handOn.ownCommitment();
  else handOn.ownSnapshot();
  lap('the commitment: key and digest');
  if (keep !== undefined && caching !== undefined) {
    const folder = caching.startCacheFolder(keep);
    if (folder === undefined) throw new Error(`the cache folder ${keep} was refused`);
    caching.keepStart(folder, engine, keeping);
    lap('cache: keep the start on disk');
  }
  if (save !== undefined && wire !== undefined) {
    // What the parent sends a later child (its work, not this child's): made for the handed runs.
    const own = handOn.ownSnapshot();
    // The CRC-32 the parent sends beside the bytes, where the build has one.
    const check = own.check === undefined ? {} : { check: own.check };
    const message = {
      type: 'handOn',
      key: own.key,
      digest: own.digest,
      ...check,
      snapshot: own.bytes,
      engine,
    };
    writeFileSync(save, wire.encodePoolMessage(message));
    mark = performance.now();
  }
}
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
phases.snapshotBytes = runtime.readRuntimeSnapshot().copy().byteLength;
process.stdout.write(`${JSON.stringify(phases)}\n`);
// Ended once the next isolate is prepared: an exit while isolated-vm's thread is still preparing one
// was seen to hang in its thread pool's teardown.
await prepared.promise;
process.exit(0);
