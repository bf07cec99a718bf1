/**
 * RUN_SOURCE (timeout.ts): defines the completion names without flags, so user code can replace
 * neither. __resultJson is an accessor whose setter keeps the first value, resolves __resultReady
 * with it and hands it to the host; __timeoutExpired is built by calling the timeout reference,
 * once. A value that is not a string reaches the host as undefined; a string past the payload
 * limit as its length, so an oversized answer is never copied out.
 */
import type { HostReference } from './host.ts';

export interface CompletionValues {
  /** PAYLOAD_LIMIT. */
  readonly payloadLimit: number;
}

export default function defineCompletion(
  values: CompletionValues,
  hostTimeout: HostReference,
  hostResult: HostReference,
): void {
  const apply = Reflect.apply;
  const deliver = hostResult.applySync;
  const payloadLimit = values.payloadLimit;
  let resolveReady: (answer: unknown) => void = () => {};
  let reported = false;
  let value: unknown;
  const ready = new Promise((resolve) => {
    resolveReady = resolve;
  });
  Object.defineProperty(globalThis, '__resultJson', {
    get() {
      return value;
    },
    set(next: unknown) {
      if (reported) return;
      reported = true;
      value = next;
      const answer = typeof next !== 'string' ? undefined : next.length > payloadLimit ? next.length : next;
      resolveReady(answer);
      try {
        apply(deliver, hostResult, [undefined, [answer]]);
      } catch {}
    },
  });
  Object.defineProperty(globalThis, '__resultReady', { value: ready });
  Object.defineProperty(globalThis, '__timeoutExpired', {
    // No prototypes: isolated-vm looks up an option it does not find on the chain (inside/timers.ts).
    value: hostTimeout.apply(undefined, [], {
      __proto__: null,
      result: { __proto__: null, promise: true },
    } as object),
  });
}
