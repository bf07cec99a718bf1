/**
 * An upstream's answers checked against its tools' output schemas off the bridge's event loop: the
 * SDK compiles every output schema with ajv when tools are listed and runs it on every answer, on
 * the thread that serves every client, so one schema of 136 KB held the bridge about 5 s per
 * listing, and one backtracking `pattern` over 30 characters of a crafted answer 5.7 s (doubling
 * per character). Here each upstream has a thread of its own (schema-check-worker.ts), started on
 * its first check, one check at a time, each given VALIDATION_TIMEOUT once the thread is ready; a
 * check that takes longer ends the thread (a new one starts for the next) and fails its call.
 */
import { Worker } from 'node:worker_threads';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { threadModule } from '../sandbox/threads/deadline-worker.ts';
import { outputSchemaMessage, validationTimeoutMessage } from './texts.ts';

/** How long one answer's check may take: a real schema checks an answer in well under a millisecond. */
export const VALIDATION_TIMEOUT = 1000;

const WORKER_URL = threadModule('schema-check-worker', import.meta.url);

/**
 * What the SDK's Client is given instead of its ajv validator: nothing is compiled or run on this
 * thread, so listing and answering cost no schema work here; SchemaCheck does it.
 */
export const NO_VALIDATION_HERE: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

export class SchemaCheck {
  #worker: Promise<Worker> | undefined;
  #next = 0;
  /** Checks run one after another: the deadline of each counts its own work only. */
  #tail: Promise<unknown> = Promise.resolve();

  /** Undefined when `value` holds against `schema`; otherwise why not, as a reason a call fails with. */
  check(schema: object, value: unknown): Promise<string | undefined> {
    const run = this.#tail.then(() => this.#run(JSON.stringify(schema), value));
    this.#tail = run.catch(() => {});
    return run;
  }

  async #run(schema: string, value: unknown): Promise<string | undefined> {
    const worker = await this.#started();
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.off('message', answered);
        this.#end(worker);
        resolve(validationTimeoutMessage(VALIDATION_TIMEOUT));
      }, VALIDATION_TIMEOUT);
      const answered = (message: { id: number; error: string | undefined }) => {
        if (message.id !== id) return;
        clearTimeout(timer);
        worker.off('message', answered);
        resolve(message.error === undefined ? undefined : outputSchemaMessage(message.error));
      };
      worker.on('message', answered);
      worker.postMessage({ id, schema, value });
    });
  }

  /** The thread, once it has loaded the validator and said so. */
  #started(): Promise<Worker> {
    this.#worker ??= new Promise((resolve, reject) => {
      const worker = new Worker(WORKER_URL);
      worker.unref();
      worker.once('message', () => resolve(worker));
      worker.once('error', (error) => {
        this.#worker = undefined;
        reject(error);
      });
      worker.once('exit', () => {
        this.#worker = undefined;
      });
    });
    return this.#worker;
  }

  #end(worker: Worker): void {
    this.#worker = undefined;
    void worker.terminate();
  }

  close(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.then((started) => started.terminate()).catch(() => {});
  }
}
