/**
 * EventTarget (DOM, https://dom.spec.whatwg.org/#interface-eventtarget), for events with no tree:
 * dispatch runs the target's listeners for the type, in order, and nothing else. As in workerd, an
 * exception a listener throws leaves dispatchEvent and the remaining listeners do not run (the DOM
 * standard reports it and goes on).
 */
import { DOMException } from '../dom-exception.ts';
import {
  ArrayPrototypePush,
  ArrayPrototypeSplice,
  ReflectApply,
  SafeMap,
  TypeErrorCtor,
} from '../primordials.ts';
import {
  defineWorkerdInterface,
  illegalInvocation,
  requireArguments,
  toBoolean,
  toDOMString,
} from '../webidl.ts';
import { type Event, eventSlots } from './event.ts';

type Callback = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };

interface Listener {
  readonly callback: Callback;
  /** What runs: the callback, or the handleEvent it had when it was added (workerd reads it once). */
  readonly handler: (event: Event) => unknown;
  readonly once: boolean;
  readonly passive: boolean;
  removed: boolean;
}

/** What an AbortSignal looks like to addEventListener's `signal` option. */
export let abortSignalHooks: {
  isSignal(value: unknown): boolean;
  aborted(signal: unknown): boolean;
  onAbort(signal: unknown, algorithm: () => void): void;
} = {
  isSignal: () => false,
  aborted: () => false,
  onAbort: () => {},
};

/** Lets AbortSignal register itself without an import cycle. */
export function setAbortSignalHooks(hooks: typeof abortSignalHooks): void {
  abortSignalHooks = hooks;
}

/**
 * Reads the options of addEventListener or removeEventListener. There is no capture phase, and
 * workerd refuses a capturing listener rather than ignoring it, with its texts.
 */
function flatten(
  options: unknown,
  operation: 'addEventListener' | 'removeEventListener',
): { once: boolean; passive: boolean; signal: unknown } {
  if (typeof options !== 'object' || options === null) {
    if (toBoolean(options)) throw new TypeErrorCtor(`${operation}(): useCapture must be false.`);
    return { once: false, passive: false, signal: undefined };
  }
  const record = options as Record<string, unknown>;
  if (toBoolean(record.capture)) throw new TypeErrorCtor(`${operation}(): options.capture must be false.`);
  if (operation === 'removeEventListener') return { once: false, passive: false, signal: undefined };
  const once = toBoolean(record.once);
  const passive = toBoolean(record.passive);
  const signal = record.signal;
  if (signal !== undefined && !abortSignalHooks.isSignal(signal)) {
    throw new TypeErrorCtor(
      "Incorrect type for the 'signal' field on 'AddEventListenerOptions': the provided value is not of type 'AbortSignal'.",
    );
  }
  return { once, passive, signal };
}

/** The function a listener runs, checked when it is added as workerd checks it. */
function handlerOf(callback: unknown): (event: Event) => unknown {
  if (typeof callback === 'function') return callback as (event: Event) => unknown;
  if (typeof callback !== 'object' || callback === null) {
    throw new TypeErrorCtor(
      "Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'function or HandlerObject'.",
    );
  }
  const handleEvent = (callback as { handleEvent?: unknown }).handleEvent;
  if (typeof handleEvent !== 'function') {
    throw new TypeErrorCtor(
      "Incorrect type for the 'handleEvent' field on 'HandlerObject': the provided value is not of type 'function'.",
    );
  }
  return (event) => ReflectApply(handleEvent, callback, [event]);
}

let invokeListeners: (target: EventTarget, presented: object, event: Event) => void;

export let eventTargetSlots: { isTarget(value: unknown): value is EventTarget };

export class EventTarget {
  #listeners = new SafeMap<string, Listener[]>();

  static {
    eventTargetSlots = {
      isTarget: (value): value is EventTarget =>
        typeof value === 'object' && value !== null && #listeners in value,
    };
  }

  addEventListener(
    type: string,
    callback: Callback | null,
    options?: boolean | Record<string, unknown>,
  ): void {
    const target = check(this);
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'addEventListener', 'EventTarget', LISTENER_PARAMETERS);
    const name = toDOMString(type);
    if (callback === null || callback === undefined) return;
    const handler = handlerOf(callback);
    const { once, passive, signal } = flatten(options, 'addEventListener');
    if (signal !== undefined && abortSignalHooks.aborted(signal)) return;
    let list = target.#listeners.get(name);
    if (list === undefined) {
      list = [];
      target.#listeners.set(name, list);
    }
    for (let index = 0; index < list.length; index++) {
      if ((list[index] as Listener).callback === callback) return;
    }
    const listener: Listener = { callback, handler, once, passive, removed: false };
    ArrayPrototypePush(list, listener);
    if (signal !== undefined) abortSignalHooks.onAbort(signal, () => target.#remove(name, listener));
  }

  removeEventListener(
    type: string,
    callback: Callback | null,
    options?: boolean | Record<string, unknown>,
  ): void {
    const target = check(this);
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'removeEventListener', 'EventTarget', REMOVE_PARAMETERS);
    const name = toDOMString(type);
    if (
      callback !== null &&
      callback !== undefined &&
      typeof callback !== 'object' &&
      typeof callback !== 'function'
    ) {
      throw new TypeErrorCtor(
        "Failed to execute 'removeEventListener' on 'EventTarget': parameter 2 is not of type 'Object'.",
      );
    }
    flatten(options, 'removeEventListener');
    const list = target.#listeners.get(name);
    if (list === undefined) return;
    for (let index = list.length - 1; index >= 0; index--) {
      const listener = list[index] as Listener;
      if (listener.callback === callback) target.#remove(name, listener);
    }
  }

  #remove(name: string, listener: Listener): void {
    listener.removed = true;
    const list = this.#listeners.get(name);
    if (list === undefined) return;
    for (let index = 0; index < list.length; index++) {
      if (list[index] === listener) {
        ArrayPrototypeSplice(list, index, 1);
        return;
      }
    }
  }

  dispatchEvent(event: Event): boolean {
    return dispatchEvent(check(this), event, this as object);
  }

  /**
   * Runs the listeners of `event.type` kept by `target`, as dispatch does for a target with no tree.
   * `presented` is what listeners see as the target and as `this` (the global object, for the
   * global scope's listeners).
   */
  static #invoke(target: EventTarget, presented: object, event: Event): void {
    const list = target.#listeners.get(event.type);
    if (list === undefined) return;
    // A snapshot: listeners added during dispatch do not run; removed ones are skipped.
    const snapshot: Listener[] = [];
    for (let index = 0; index < list.length; index++) snapshot[index] = list[index] as Listener;
    for (let index = 0; index < snapshot.length; index++) {
      // The flag outlives a dispatch in workerd, so an event stopped before it runs no listener.
      if (eventSlots.stoppedImmediately(event)) break;
      const listener = snapshot[index] as Listener;
      if (listener.removed) continue;
      if (listener.once) target.#remove(event.type, listener);
      eventSlots.inPassiveListener(event, listener.passive);
      try {
        // A throw leaves dispatch, and the remaining listeners do not run: workerd's behaviour.
        ReflectApply(listener.handler, presented, [event]);
      } finally {
        eventSlots.inPassiveListener(event, false);
      }
    }
  }

  static {
    invokeListeners = (target, presented, event) => EventTarget.#invoke(target, presented, event);
  }
}

const LISTENER_PARAMETERS = ['string', 'function or HandlerObject'];
const REMOVE_PARAMETERS = ['string', 'Object'];

/**
 * EventTarget.prototype.dispatchEvent for `target` (the global scope's too): the argument checks,
 * then dispatch. It answers false when a listener called preventDefault, as workerd does.
 */
export function dispatchEvent(target: EventTarget, event: unknown, presented: object): boolean {
  if (!eventSlots.isEvent(event)) {
    throw new TypeErrorCtor(
      "Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.",
    );
  }
  if (eventSlots.dispatching(event)) {
    throw new DOMException('The event is already being dispatched.', 'InvalidStateError');
  }
  dispatch(target, event, presented);
  return !eventSlots.preventDefaultCalled(event);
}

/** Dispatches `event` at `target`: the target's listeners, with the event's state set around them. */
export function dispatch(target: EventTarget, event: Event, presented: object = target): void {
  eventSlots.beginDispatch(event, presented);
  eventSlots.setCurrentTarget(event, presented);
  try {
    invokeListeners(target, presented, event);
  } finally {
    eventSlots.endDispatch(event);
  }
}

function check(value: unknown): EventTarget {
  if (!eventTargetSlots.isTarget(value)) throw illegalInvocation();
  return value;
}

defineWorkerdInterface(EventTarget);
