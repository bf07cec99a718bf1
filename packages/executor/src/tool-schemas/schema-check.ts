/**
 * Values checked against JSON Schemas off the caller's event loop. A schema's `pattern` is a
 * regular expression its author chose and the value a program's, so one check may backtrack for
 * seconds: in the MCP bridge the SDK's own check of an upstream's answer held the thread that
 * serves every client about 5 s for one 136 KB schema's compilation, and 5.7 s for one backtracking
 * `pattern` over 30 characters of a crafted answer (doubling per character). So every check runs
 * in a thread of the checker's own (schema-check-worker.ts), started on its first check, one check
 * at a time, each given its deadline (VALIDATION_TIMEOUT) once the thread is ready; a check that
 * takes longer ends the thread (a new one starts for the next) and answers `timeout`. A thread
 * with no check for SCHEMA_CHECK_IDLE_TIMEOUT is ended too: a checker made per tool set must not
 * hold a thread for the life of the process. The bridge has a checker per upstream (for output
 * schemas); describeTools one per tool set (for input schemas).
 */
import { Worker } from 'node:worker_threads';
import { threadModule } from '../sandbox/threads/deadline-worker.ts';

/** How long one check may take: a real schema checks a value in well under a millisecond. */
export const VALIDATION_TIMEOUT = 1000;
/**
 * How long a checker's thread stays alive with no check (ms). A thread's start with ajv's load costs
 * 150 to 200 ms here and a warm check under a millisecond, and a model's turn between two programs
 * takes seconds, so a short rest would restart the thread for nearly every program; a minute frees
 * the thread (a V8 heap of its own) of a tool set or an upstream no one calls any more.
 */
export const SCHEMA_CHECK_IDLE_TIMEOUT = 60_000;

/** Where a value fails its schema: `path` is a JSON Pointer into the value ('' for the value itself). */
export interface SchemaProblem {
  readonly path: string;
  /** ajv's words for the rule that failed: `must be string`, `must match pattern "^a+$"`. */
  readonly message: string;
  /** The key a rule against other properties (additionalProperties, unevaluatedProperties) refused. */
  readonly extraProperty?: string;
}

export type SchemaVerdict =
  | { readonly kind: 'holds' }
  | { readonly kind: 'fails'; readonly problems: readonly SchemaProblem[] }
  /** The schema itself could not be compiled; `reason` is the validator's. */
  | { readonly kind: 'unreadable'; readonly reason: string }
  /** The check took longer than its deadline and was ended. */
  | { readonly kind: 'timeout'; readonly timeout: number };

export interface SchemaCheckOptions {
  /** Ms one check may take once the thread is ready; VALIDATION_TIMEOUT by default. */
  readonly timeout?: number;
  /** Ms the thread stays alive with no check; SCHEMA_CHECK_IDLE_TIMEOUT by default. */
  readonly idleTimeout?: number;
}

const WORKER_URL = threadModule('schema-check-worker', import.meta.url);

/** The value as ajv reports it: the problems as one line, `data/city must be string, data ...`. */
export function problemsText(problems: readonly SchemaProblem[]): string {
  return problems.map((problem) => `data${problem.path} ${problem.message}`).join(', ');
}

export class SchemaCheck {
  readonly #timeout: number;
  readonly #idleTimeout: number;
  #worker: Promise<Worker> | undefined;
  #next = 0;
  /** Checks run one after another: the deadline of each counts its own work only. */
  #tail: Promise<unknown> = Promise.resolve();
  #waiting = 0;
  #idle: NodeJS.Timeout | undefined;
  /** Each schema's text, made once: a tool's schema is checked against at every call. */
  readonly #texts = new WeakMap<object, string>();

  constructor({
    timeout = VALIDATION_TIMEOUT,
    idleTimeout = SCHEMA_CHECK_IDLE_TIMEOUT,
  }: SchemaCheckOptions = {}) {
    this.#timeout = timeout;
    this.#idleTimeout = idleTimeout;
  }

  /** Whether `value` holds against `schema` (a JSON Schema object); rejects only when no thread starts. */
  check(schema: object, value: unknown): Promise<SchemaVerdict> {
    this.#waiting++;
    clearTimeout(this.#idle);
    let text = this.#texts.get(schema);
    if (text === undefined) {
      text = JSON.stringify(schema);
      this.#texts.set(schema, text);
    }
    const run = this.#tail.then(() => this.#run(text, value));
    this.#tail = run.catch(() => {});
    return run.finally(() => {
      if (--this.#waiting === 0) this.#idle = setTimeout(() => this.close(), this.#idleTimeout).unref();
    });
  }

  async #run(schema: string, value: unknown): Promise<SchemaVerdict> {
    const worker = await this.#started();
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.off('message', answered);
        this.#end(worker);
        resolve({ kind: 'timeout', timeout: this.#timeout });
      }, this.#timeout);
      const answered = (message: { id: number; verdict: SchemaVerdict }) => {
        if (message.id !== id) return;
        clearTimeout(timer);
        worker.off('message', answered);
        resolve(message.verdict);
      };
      worker.on('message', answered);
      worker.postMessage({ id, schema, value });
    });
  }

  /**
   * The thread, once it has loaded the validator and said so. Its exit forgets it only while it is
   * still the checker's thread: a thread ended for its deadline exits after the next has started.
   */
  #started(): Promise<Worker> {
    if (this.#worker !== undefined) return this.#worker;
    const forget = () => {
      if (this.#worker === started) this.#worker = undefined;
    };
    const started = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_URL);
      worker.unref();
      worker.once('message', () => resolve(worker));
      worker.once('error', (error) => {
        forget();
        reject(error);
      });
      worker.once('exit', forget);
    });
    this.#worker = started;
    return started;
  }

  #end(worker: Worker): void {
    this.#worker = undefined;
    void worker.terminate();
  }

  /** Ends the thread, if one runs; a later check starts another. */
  close(): void {
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.then((started) => started.terminate()).catch(() => {});
  }
}
