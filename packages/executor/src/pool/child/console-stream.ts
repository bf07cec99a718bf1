/**
 * A run's console lines on their way to the parent while it runs (the execute message asked with
 * `streamConsole`). The program's console call only appends to a batch here, so it never waits on
 * the parent or on whoever watches there; the batch leaves at most CONSOLE_BATCH_INTERVAL later,
 * and whatever is left leaves before the result. The lines are the ones the sandbox captured, so
 * the capture bound holds for them as for the envelope's logs.
 */
import type { LogLine } from '@supolka/codemode-protocol/wire';
import type { MessageEndpoint } from '../channel.ts';

/** How long a line waits in the child before its batch is sent, at most, in ms. */
export const CONSOLE_BATCH_INTERVAL = 25;

export class ConsoleStream {
  readonly #id: string;
  readonly #parent: MessageEndpoint;
  #lines: LogLine[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(id: string, parent: MessageEndpoint) {
    this.#id = id;
    this.#parent = parent;
  }

  /** The sandbox's console listener: appends, and schedules the batch. */
  readonly push = (line: LogLine): void => {
    this.#lines.push(line);
    this.#timer ??= setTimeout(() => this.flush(), CONSOLE_BATCH_INTERVAL);
  };

  /** Sends what waits now; called by the timer, and before the run's result. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0) return;
    const lines = this.#lines;
    this.#lines = [];
    // Within the capture bound (1 MiB of cost), far below PAYLOAD_LIMIT.
    this.#parent.send({ type: 'console', id: this.#id, lines });
  }
}
