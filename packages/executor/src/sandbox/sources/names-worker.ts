/**
 * The export-name reader's thread, which the sandbox runs in a deadline worker
 * (threads/deadline-worker.ts): reads each source it is sent (export-names.ts) and answers with the
 * names as JSON. Off the main thread so a source of megabytes (lexing 10 MB takes about 100 ms)
 * neither stalls the host's event loop nor outlives the run's bound; never imported.
 *
 * A source's name starts with the reading it asks for (`cjs:` or `esm:`, cjs-exports.ts).
 */
import { parentPort } from 'node:worker_threads';
import type { WorkerAnswer, WorkerJob, WorkerResult } from '../threads/deadline-worker.ts';
import { threadRetainedBytes } from '../threads/thread-memory.ts';
import { type NameReading, readNames } from './export-names.ts';

const port = parentPort;
if (port === null) throw new Error('names-worker runs as a worker thread.');

port.on('message', ({ id, sources }: WorkerJob) => {
  const results = sources.map(({ name, source }): WorkerResult => {
    const reading = name.slice(0, name.indexOf(':')) as NameReading;
    return { code: JSON.stringify(readNames(reading, source)) };
  });
  port.postMessage({ id, results, retained: threadRetainedBytes() } satisfies WorkerAnswer);
});
port.postMessage('ready');
