/**
 * How a tool says "pause the durable run" wherever it runs: by throwing a PauseSignal (pause()
 * throws one). The executor's own pause (its durable/pause.ts) throws a subclass and records the
 * pause in the call's context; a client of a remote executor, which has no such context in a
 * browser, recognises the signal itself as its tool's throw passes by (splitRequest's
 * `passThrough`) and answers the call with `paused` (docs/durable.md, "Over the wire"). The mark is
 * a registered symbol, so a signal is recognised across copies of this package.
 */
import { PAUSE_REASON_LIMIT } from './limits.ts';

const PAUSE_MARK = Symbol.for('@supolka/codemode.pause');

/** What pause() says to a run that is not durable: the tool fails with it. */
export const NOT_DURABLE_PAUSE_MESSAGE =
  'The tool asked to pause the run, but the run is not durable: a pause needs a request with durable: true and a key ring on the executor.';

/** Why a tool paused, and any JSON data for whoever resumes the run. */
export interface PauseRequest {
  readonly reason?: string;
  readonly data?: unknown;
}

/** Thrown by pause(): outside a durable run, an error as any other, saying why it did not pause. */
export class PauseSignal extends Error {
  override name = 'PauseSignal';
  readonly reason: string | undefined;
  readonly data: unknown;
  readonly [PAUSE_MARK] = true;
  constructor(request: PauseRequest, message = NOT_DURABLE_PAUSE_MESSAGE) {
    super(message);
    this.reason = request.reason;
    this.data = request.data;
  }
}

/** Whether `value` is a PauseSignal, of this copy of the package or another. */
export function isPauseSignal(value: unknown): value is PauseSignal {
  return (
    typeof value === 'object' && value !== null && (value as { [PAUSE_MARK]?: unknown })[PAUSE_MARK] === true
  );
}

/** The request a pause() call makes: the reason cut to PAUSE_REASON_LIMIT, the data as given. */
export function pauseRequest(data: unknown, options: { reason?: string } = {}): PauseRequest {
  return {
    ...(options.reason !== undefined ? { reason: String(options.reason).slice(0, PAUSE_REASON_LIMIT) } : {}),
    ...(data !== undefined ? { data } : {}),
  };
}
