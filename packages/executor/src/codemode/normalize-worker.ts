/**
 * The Code Mode normalizer's thread (normalize-lanes.ts starts it, through the deadline worker's job
 * protocol, sandbox/threads/deadline-worker.ts): each source is read into the entry toEntryCode makes (with the slices of the code it
 * copied, as JSON text), with acorn and, for a source
 * named as TypeScript, amaro. Off the caller's thread so a read that takes long, however the code
 * makes it, is ended at the run's bound by terminating this thread; never imported.
 */
import { parentPort } from 'node:worker_threads';
import { CodemodeError } from '@supolka/codemode-protocol/wire';
import { isTypeScriptModule } from '../sandbox/sources/typescript.ts';
import type { WorkerAnswer, WorkerJob, WorkerResult } from '../sandbox/threads/deadline-worker.ts';
import { threadRetainedBytes } from '../sandbox/threads/thread-memory.ts';
import { entryData, normalize } from './entry-code.ts';

const port = parentPort;
if (port === null) throw new Error('normalize-worker runs as a worker thread.');

port.on('message', ({ id, sources }: WorkerJob) => {
  const results = sources.map(({ name, source }): WorkerResult => {
    try {
      // The entry and the slices of the code it copied, as JSON text in the answer's `code` field:
      // the caller's thread maps positions back through them (code-positions.ts).
      return { code: JSON.stringify(entryData(normalize(source, isTypeScriptModule(name)))) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { refused: message, badRequest: error instanceof CodemodeError };
    }
  });
  port.postMessage({ id, results, retained: threadRetainedBytes() } satisfies WorkerAnswer);
});
port.postMessage('ready');
