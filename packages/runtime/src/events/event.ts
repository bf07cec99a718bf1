/**
 * Event (DOM, https://dom.spec.whatwg.org/#interface-event). There is no tree here: an event is
 * dispatched at one target, so composedPath is that target or nothing, and the phase is AT_TARGET
 * while it runs.
 */
import { now } from '../performance.ts';
import { ObjectDefineProperty, TypeErrorCtor } from '../primordials.ts';
import { defineInterface, illegalInvocation, requireArguments, toBoolean, toDOMString } from '../webidl.ts';

export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

/** Reads an EventInit dictionary member by member, in the order WebIDL reads them. */
export function readEventInit(init: unknown): Required<EventInit> {
  if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function') {
    throw new TypeErrorCtor("Failed to construct 'Event': The provided value is not of type 'EventInit'.");
  }
  const dictionary = (init ?? {}) as Record<string, unknown>;
  return {
    bubbles: toBoolean(dictionary.bubbles),
    cancelable: toBoolean(dictionary.cancelable),
    composed: toBoolean(dictionary.composed),
  };
}

/** Module-only access to an event's dispatch state, for EventTarget. */
export let eventSlots: {
  isEvent(value: unknown): value is Event;
  beginDispatch(event: Event, target: object): void;
  setCurrentTarget(event: Event, target: object | null): void;
  endDispatch(event: Event): void;
  stopped(event: Event): boolean;
  stoppedImmediately(event: Event): boolean;
  inPassiveListener(event: Event, passive: boolean): void;
  dispatching(event: Event): boolean;
  setTrusted(event: Event): void;
};

export class Event {
  static readonly NONE = 0;
  static readonly CAPTURING_PHASE = 1;
  static readonly AT_TARGET = 2;
  static readonly BUBBLING_PHASE = 3;

  #type: string;
  #bubbles: boolean;
  #cancelable: boolean;
  #composed: boolean;
  #target: object | null = null;
  #currentTarget: object | null = null;
  #phase = 0;
  #canceled = false;
  #stopPropagation = false;
  #stopImmediate = false;
  #passive = false;
  #dispatching = false;
  #timeStamp: number;

  constructor(type: string, init?: EventInit) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments; a rest parameter would change Event.length.
    requireArguments(arguments.length, 1, 'constructor', 'Event');
    this.#type = toDOMString(type);
    const { bubbles, cancelable, composed } = readEventInit(init);
    this.#bubbles = bubbles;
    this.#cancelable = cancelable;
    this.#composed = composed;
    this.#timeStamp = now();
    // isTrusted is [LegacyUnforgeable]: an own accessor of every instance, false unless the runtime fired it.
    ObjectDefineProperty(this, 'isTrusted', { get: isTrustedGetter, enumerable: true, configurable: false });
  }

  static {
    eventSlots = {
      isEvent: (value): value is Event => typeof value === 'object' && value !== null && #type in value,
      beginDispatch: (event, target) => {
        event.#dispatching = true;
        event.#target = target;
        event.#phase = Event.AT_TARGET;
      },
      setCurrentTarget: (event, target) => {
        event.#currentTarget = target;
      },
      endDispatch: (event) => {
        event.#dispatching = false;
        event.#phase = Event.NONE;
        event.#currentTarget = null;
        event.#stopPropagation = false;
        event.#stopImmediate = false;
      },
      stopped: (event) => event.#stopPropagation,
      stoppedImmediately: (event) => event.#stopImmediate,
      inPassiveListener: (event, passive) => {
        event.#passive = passive;
      },
      dispatching: (event) => event.#dispatching,
      setTrusted: (event) => {
        trusted.add(event);
      },
    };
  }

  get type(): string {
    return check(this).#type;
  }
  get target(): object | null {
    return check(this).#target;
  }
  get srcElement(): object | null {
    return check(this).#target;
  }
  get currentTarget(): object | null {
    return check(this).#currentTarget;
  }
  composedPath(): object[] {
    const event = check(this);
    return event.#dispatching && event.#currentTarget !== null ? [event.#currentTarget] : [];
  }
  get eventPhase(): number {
    return check(this).#phase;
  }
  stopPropagation(): void {
    check(this).#stopPropagation = true;
  }
  get cancelBubble(): boolean {
    return check(this).#stopPropagation;
  }
  set cancelBubble(value: boolean) {
    if (value) check(this).#stopPropagation = true;
  }
  stopImmediatePropagation(): void {
    const event = check(this);
    event.#stopPropagation = true;
    event.#stopImmediate = true;
  }
  get bubbles(): boolean {
    return check(this).#bubbles;
  }
  get cancelable(): boolean {
    return check(this).#cancelable;
  }
  get returnValue(): boolean {
    return !check(this).#canceled;
  }
  set returnValue(value: boolean) {
    if (!value) this.preventDefault();
  }
  preventDefault(): void {
    const event = check(this);
    if (event.#cancelable && !event.#passive) event.#canceled = true;
  }
  get defaultPrevented(): boolean {
    return check(this).#canceled;
  }
  get composed(): boolean {
    return check(this).#composed;
  }
  get timeStamp(): number {
    return check(this).#timeStamp;
  }
  initEvent(type: string, bubbles = false, cancelable = false): void {
    const event = check(this);
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'initEvent', 'Event');
    if (event.#dispatching) return;
    event.#stopPropagation = false;
    event.#stopImmediate = false;
    event.#canceled = false;
    event.#type = toDOMString(type);
    event.#bubbles = toBoolean(bubbles);
    event.#cancelable = toBoolean(cancelable);
    event.#target = null;
  }
}

const trusted = new WeakSet<object>();

function isTrustedGetter(this: unknown): boolean {
  return trusted.has(this as object);
}

function check(value: unknown): Event {
  if (!eventSlots.isEvent(value)) throw illegalInvocation();
  return value;
}

for (const [name, value] of [
  ['NONE', 0],
  ['CAPTURING_PHASE', 1],
  ['AT_TARGET', 2],
  ['BUBBLING_PHASE', 3],
] as const) {
  ObjectDefineProperty(Event.prototype, name, {
    value,
    writable: false,
    enumerable: true,
    configurable: false,
  });
  ObjectDefineProperty(Event, name, { value, writable: false, enumerable: true, configurable: false });
}
defineInterface(Event);
