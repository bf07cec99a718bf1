/**
 * AbortController and AbortSignal (DOM, https://dom.spec.whatwg.org/#interface-abortcontroller):
 * abort with a reason, AbortSignal.abort, AbortSignal.timeout, AbortSignal.any, throwIfAborted,
 * and the onabort handler.
 */
import { DOMException } from '../dom-exception.ts';
import { Event, eventSlots } from '../events/event.ts';
import { dispatch, EventTarget, setAbortSignalHooks } from '../events/event-target.ts';
import { assertRequestScope } from '../internals.ts';
import {
  ArrayIsArray,
  ArrayPrototypeIncludes,
  ArrayPrototypePush,
  ReflectApply,
  TypeErrorCtor,
} from '../primordials.ts';
import { argumentTypeError, defineWorkerdInterface, illegalInvocation, requireArguments } from '../webidl.ts';

const ABORTED_MESSAGE = 'The operation was aborted';
const TIMED_OUT_MESSAGE = 'The operation was aborted due to timeout';

let constructing = false;

/** Module-only access for fetch, streams and the controller. */
export let abortSlots: {
  create(): AbortSignal;
  signalAbort(signal: AbortSignal, reason: unknown): void;
  onAbort(signal: AbortSignal, algorithm: () => void): void;
};

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  #algorithms: (() => void)[] = [];
  #onabort: ((event: Event) => unknown) | null = null;
  #onabortListener: ((event: Event) => unknown) | undefined;
  /** For a signal made by AbortSignal.any: the signals it follows. */
  #sources: AbortSignal[] = [];
  /** For a source signal: the dependent signals that follow it, in the order they began to (each once). */
  #dependents: AbortSignal[] = [];

  constructor() {
    if (!constructing) throw new TypeErrorCtor('Illegal constructor');
    super();
  }

  static #check(value: unknown): AbortSignal {
    if (typeof value !== 'object' || value === null || !(#aborted in value)) throw illegalInvocation();
    return value as AbortSignal;
  }

  static #create(): AbortSignal {
    constructing = true;
    try {
      return new AbortSignal();
    } finally {
      constructing = false;
    }
  }

  /** https://dom.spec.whatwg.org/#abortsignal-signal-abort */
  static #signalAbort(signal: AbortSignal, reason: unknown): void {
    // 1. If signal is aborted, then return.
    if (signal.#aborted) return;
    // 2. Set signal's abort reason to reason if it is given; otherwise to a new "AbortError" DOMException.
    signal.#aborted = true;
    signal.#reason = reason === undefined ? new DOMException(ABORTED_MESSAGE, 'AbortError') : reason;
    // 3-4. Collect the dependent signals to abort, and abort them with the same reason.
    const dependents: AbortSignal[] = [];
    for (let index = 0; index < signal.#dependents.length; index++) {
      const dependent = signal.#dependents[index] as AbortSignal;
      if (!dependent.#aborted) {
        dependent.#aborted = true;
        dependent.#reason = signal.#reason;
        ArrayPrototypePush(dependents, dependent);
      }
    }
    // 5-6. Run the abort steps for signal, then for each dependent.
    AbortSignal.#runAbortSteps(signal);
    for (let index = 0; index < dependents.length; index++)
      AbortSignal.#runAbortSteps(dependents[index] as AbortSignal);
  }

  static #runAbortSteps(signal: AbortSignal): void {
    const algorithms = signal.#algorithms;
    signal.#algorithms = [];
    for (let index = 0; index < algorithms.length; index++) {
      try {
        (algorithms[index] as () => void)();
      } catch {}
    }
    const event = new Event('abort');
    eventSlots.setTrusted(event);
    dispatch(signal, event);
  }

  static {
    setAbortSignalHooks({
      isSignal: (value) => typeof value === 'object' && value !== null && #aborted in value,
      aborted: (signal) => (signal as AbortSignal).#aborted,
      onAbort: (signal, algorithm) => {
        ArrayPrototypePush((signal as AbortSignal).#algorithms, algorithm);
      },
    });
    abortSlots = {
      create: () => AbortSignal.#create(),
      signalAbort: (signal, reason) => AbortSignal.#signalAbort(signal, reason),
      onAbort: (signal, algorithm) => {
        if (signal.#aborted) return;
        ArrayPrototypePush(signal.#algorithms, algorithm);
      },
    };
  }

  static abort(reason?: unknown): AbortSignal {
    const signal = AbortSignal.#create();
    AbortSignal.#signalAbort(signal, reason);
    return signal;
  }

  static timeout(milliseconds: number): AbortSignal {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'timeout', 'AbortSignal', ['number']);
    // workerd converts the delay as setTimeout does (-1, NaN, 'abc' are accepted), where the DOM
    // standard's [EnforceRange] unsigned long long would throw; a Symbol or BigInt throws in both.
    const delay = +milliseconds;
    assertRequestScope();
    const signal = AbortSignal.#create();
    const setTimeoutNow = (globalThis as { setTimeout?: (callback: () => void, ms: number) => unknown })
      .setTimeout;
    setTimeoutNow?.(
      () => AbortSignal.#signalAbort(signal, new DOMException(TIMED_OUT_MESSAGE, 'TimeoutError')),
      delay,
    );
    return signal;
  }

  static any(signals: AbortSignal[]): AbortSignal {
    // workerd takes an Array only, where WebIDL's sequence would take any iterable.
    if (!ArrayIsArray(signals)) throw argumentTypeError('any', 'AbortSignal', 1, 'Array');
    const list: AbortSignal[] = [];
    for (let index = 0; index < signals.length; index++) {
      const signal = signals[index];
      if (typeof signal !== 'object' || signal === null || !(#aborted in signal)) {
        throw new TypeErrorCtor(
          `Incorrect type for array element ${index}: the provided value is not of type 'AbortSignal'.`,
        );
      }
      ArrayPrototypePush(list, signal);
    }
    const result = AbortSignal.#create();
    // https://dom.spec.whatwg.org/#create-a-dependent-abort-signal
    for (let index = 0; index < list.length; index++) {
      const signal = list[index] as AbortSignal;
      if (signal.#aborted) {
        result.#aborted = true;
        result.#reason = signal.#reason;
        return result;
      }
    }
    for (let index = 0; index < list.length; index++) {
      const signal = list[index] as AbortSignal;
      const sources = signal.#sources.length > 0 ? signal.#sources : [signal];
      for (let position = 0; position < sources.length; position++) {
        const source = sources[position] as AbortSignal;
        if (!ArrayPrototypeIncludes(result.#sources, source)) {
          ArrayPrototypePush(result.#sources, source);
          ArrayPrototypePush(source.#dependents, result);
        }
      }
    }
    return result;
  }

  get aborted(): boolean {
    return AbortSignal.#check(this).#aborted;
  }

  get reason(): unknown {
    return AbortSignal.#check(this).#reason;
  }

  get onabort(): ((event: Event) => unknown) | null {
    return AbortSignal.#check(this).#onabort;
  }

  set onabort(handler: ((event: Event) => unknown) | null) {
    const signal = AbortSignal.#check(this);
    signal.#onabort =
      typeof handler === 'function' || (typeof handler === 'object' && handler !== null) ? handler : null;
    if (signal.#onabortListener === undefined) {
      signal.#onabortListener = (event) => {
        const current = signal.#onabort;
        if (typeof current === 'function') return ReflectApply(current, signal, [event]);
      };
      signal.addEventListener('abort', signal.#onabortListener);
    }
  }

  throwIfAborted(): void {
    const signal = AbortSignal.#check(this);
    if (signal.#aborted) throw signal.#reason;
  }
}

export class AbortController {
  #signal: AbortSignal;

  constructor() {
    this.#signal = abortSlots.create();
  }

  static #check(value: unknown): AbortController {
    if (typeof value !== 'object' || value === null || !(#signal in value)) throw illegalInvocation();
    return value as AbortController;
  }

  get signal(): AbortSignal {
    return AbortController.#check(this).#signal;
  }

  abort(reason?: unknown): void {
    abortSlots.signalAbort(AbortController.#check(this).#signal, reason);
  }
}

defineWorkerdInterface(AbortSignal);
defineWorkerdInterface(AbortController);
