/**
 * The type eraser's thread, which the sandbox runs in a deadline worker (threads/deadline-worker.ts):
 * erases the sources it is sent and answers each with the erased text or the refusal's message. Off
 * the main thread so a long erasure can be ended at the run's bound by terminating this thread;
 * never imported.
 */
import { parentPort } from 'node:worker_threads';
import { CodemodeError } from '@supolka/codemode-protocol/wire';
import type { WorkerAnswer, WorkerJob, WorkerResult } from '../threads/deadline-worker.ts';
import { threadRetainedBytes } from '../threads/thread-memory.ts';
import { eraseTypes } from './typescript.ts';

const port = parentPort;
if (port === null) throw new Error('erasure-worker runs as a worker thread.');

port.on('message', ({ id, sources }: WorkerJob) => {
  const results = sources.map(({ name, source }): WorkerResult => {
    try {
      return { code: eraseTypes(source, name) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { refused: message, badRequest: error instanceof CodemodeError };
    }
  });
  port.postMessage({ id, results, retained: threadRetainedBytes() } satisfies WorkerAnswer);
});
port.postMessage('ready');
