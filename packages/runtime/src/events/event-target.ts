/**
 * EventTarget (DOM, https://dom.spec.whatwg.org/#interface-eventtarget), for events with no tree:
 * dispatch runs the target's listeners for the type, in order, and nothing else. A listener that
 * throws is reported (reportException) and the others still run.
 */
import { DOMException } from '../dom-exception.ts';
import { ArrayPrototypePush, ReflectApply, TypeErrorCtor } from '../primordials.ts';
import { reportException } from '../report-exception.ts';
import { defineInterface, illegalInvocation, requireArguments, toBoolean, toDOMString } from '../webidl.ts';
import { type Event, eventSlots } from './event.ts';

const ArraySplice = Array.prototype.splice;

type Callback = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };

interface Listener {
  readonly callback: Callback;
  readonly capture: boolean;
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

function flatten(options: unknown): { capture: boolean; once: boolean; passive: boolean; signal: unknown } {
  if (typeof options !== 'object' || options === null)
    return { capture: toBoolean(options), once: false, passive: false, signal: undefined };
  const record = options as Record<string, unknown>;
  const signal = record.signal;
  if (signal !== undefined && !abortSignalHooks.isSignal(signal)) {
    throw new TypeErrorCtor(
      "Failed to execute 'addEventListener' on 'EventTarget': member signal is not of type 'AbortSignal'.",
    );
  }
  return {
    capture: toBoolean(record.capture),
    once: toBoolean(record.once),
    passive: toBoolean(record.passive),
    signal,
  };
}

let invokeListeners: (target: EventTarget, presented: object, event: Event) => void;

export let eventTargetSlots: { isTarget(value: unknown): value is EventTarget };

export class EventTarget {
  #listeners = new Map<string, Listener[]>();

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
    requireArguments(arguments.length, 2, 'addEventListener', 'EventTarget');
    const name = toDOMString(type);
    const { capture, once, passive, signal } = flatten(options);
    if (callback === null || callback === undefined) return;
    if (typeof callback !== 'function' && typeof callback !== 'object') {
      throw new TypeErrorCtor(
        "Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'EventListener'.",
      );
    }
    if (signal !== undefined && abortSignalHooks.aborted(signal)) return;
    let list = target.#listeners.get(name);
    if (list === undefined) {
      list = [];
      target.#listeners.set(name, list);
    }
    for (let index = 0; index < list.length; index++) {
      const existing = list[index] as Listener;
      if (existing.callback === callback && existing.capture === capture) return;
    }
    const listener: Listener = { callback, capture, once, passive, removed: false };
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
    requireArguments(arguments.length, 2, 'removeEventListener', 'EventTarget');
    const name = toDOMString(type);
    const capture =
      typeof options === 'object' && options !== null ? toBoolean(options.capture) : toBoolean(options);
    const list = target.#listeners.get(name);
    if (list === undefined) return;
    for (let index = list.length - 1; index >= 0; index--) {
      const listener = list[index] as Listener;
      if (listener.callback === callback && listener.capture === capture) target.#remove(name, listener);
    }
  }

  #remove(name: string, listener: Listener): void {
    listener.removed = true;
    const list = this.#listeners.get(name);
    if (list === undefined) return;
    for (let index = 0; index < list.length; index++) {
      if (list[index] === listener) {
        ReflectApply(ArraySplice, list, [index, 1]);
        return;
      }
    }
  }

  dispatchEvent(event: Event): boolean {
    const target = check(this);
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'dispatchEvent', 'EventTarget');
    if (!eventSlots.isEvent(event)) {
      throw new TypeErrorCtor(
        "Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.",
      );
    }
    if (eventSlots.dispatching(event)) {
      throw new DOMException('The event is already being dispatched.', 'InvalidStateError');
    }
    dispatch(target, event);
    return !event.defaultPrevented;
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
      const listener = snapshot[index] as Listener;
      if (listener.removed) continue;
      if (listener.once) target.#remove(event.type, listener);
      eventSlots.inPassiveListener(event, listener.passive);
      try {
        const callback = listener.callback;
        if (typeof callback === 'function') ReflectApply(callback, presented, [event]);
        else ReflectApply(callback.handleEvent, callback, [event]);
      } catch (error) {
        reportException(error);
      }
      eventSlots.inPassiveListener(event, false);
      if (eventSlots.stoppedImmediately(event)) break;
    }
  }

  static {
    invokeListeners = (target, presented, event) => EventTarget.#invoke(target, presented, event);
  }
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

defineInterface(EventTarget);
