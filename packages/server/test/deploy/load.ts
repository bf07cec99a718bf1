/**
 * Executions driven through the balancer the way a caller that outlives one server would: each
 * worker holds one ExecutorClient, serves its tools, and connects again through the balancer
 * when its server goes away, sending again an execution the server never ran (OVERLOADED while it
 * shuts down, or WORKER_LOST from its 1001 close) and recording any other outcome as it came.
 */
import { CLOSE_CODES, type ExecuteResult, ExecutorClient } from '@supolka/codemode-protocol/client';
import { openSocket } from '../helpers.ts';

export interface Outcome {
  readonly n: number;
  /** The instance whose connection ran the last try. */
  readonly instance: string;
  /** When the last try was sent (performance.now()). */
  readonly sent: number;
  readonly envelope: ExecuteResult;
  /** How many times it was sent: more than once only when a server shut down before running it. */
  readonly tries: number;
}

export async function connectThrough(url: string, token: string): Promise<ExecutorClient> {
  return ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${token}` }));
}

/** The program of execution `n`: two tool calls answered by the client. Its result is 8n + 1. */
export function program(n: number) {
  return {
    code: `async () => (await calc.mul(${n}, 7)) + (await calc.add(${n}, 1))`,
    providers: [
      { name: 'calc', fns: { mul: (a: number, b: number) => a * b, add: (a: number, b: number) => a + b } },
    ],
  };
}

/** A server that keeps refusing is an outcome too, not a loop. */
const MAX_TRIES = 5;

/** Never ran: the server refused it while draining, or closed for shutdown before reading it. */
function neverRan(envelope: ExecuteResult, client: ExecutorClient): boolean {
  if (envelope.code === 'OVERLOADED') return true;
  return envelope.code === 'WORKER_LOST' && client.closedWith?.code === CLOSE_CODES.goingAway;
}

export class Load {
  readonly outcomes: Outcome[] = [];
  /** Instances each new connection reached, in order. */
  readonly connections: string[] = [];
  /** Why a worker stopped early, if one did. */
  readonly errors: Error[] = [];
  readonly #url: string;
  readonly #token: string;
  readonly #total: number;
  #next = 0;
  #stopped = false;
  readonly #clients = new Set<ExecutorClient>();

  constructor(url: string, token: string, total: number) {
    this.#url = url;
    this.#token = token;
    this.#total = total;
  }

  /**
   * Runs executions over `workers` concurrent clients until `total` were sent or `stop()` was
   * called; resolves when every one sent has its outcome.
   */
  async run(workers: number): Promise<Outcome[]> {
    await Promise.all(Array.from({ length: workers }, () => this.#work()));
    return this.outcomes;
  }

  async #connect(): Promise<ExecutorClient> {
    const client = await connectThrough(this.#url, this.#token);
    this.#clients.add(client);
    this.connections.push(client.instance ?? '');
    return client;
  }

  async #work(): Promise<void> {
    try {
      await this.#serve();
    } catch (error) {
      // A connection the balancer could not make ends this worker; the test reads why.
      this.errors.push(error as Error);
    }
  }

  async #serve(): Promise<void> {
    let client = await this.#connect();
    while (this.#next < this.#total && !this.#stopped) {
      const n = this.#next++;
      for (let tries = 1; ; tries += 1) {
        const sent = performance.now();
        const envelope = await client.execute(program(n));
        const instance = client.instance ?? '';
        const retry = neverRan(envelope, client);
        if (retry || client.closed || envelope.code === 'WORKER_LOST') {
          // Its server is going away: this connection takes nothing more.
          client.close();
          client = await this.#connect();
        }
        if (!retry || tries >= MAX_TRIES) {
          this.outcomes.push({ n, instance, sent, envelope, tries });
          break;
        }
      }
    }
    client.close();
  }

  /** Sends nothing more; what was sent still finishes. */
  stop(): void {
    this.#stopped = true;
  }

  /** How many executions were sent (each counts once, however many tries it took). */
  get sent(): number {
    return this.#next;
  }

  close(): void {
    for (const client of this.#clients) client.close();
  }
}
