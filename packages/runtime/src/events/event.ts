/**
 * Event (DOM, https://dom.spec.whatwg.org/#interface-event) as workerd implements it. There is no
 * tree here: an event is dispatched at one target, so composedPath is that target or nothing, and
 * the phase is AT_TARGET while it runs.
 *
 * Where workerd departs from the DOM standard, this follows workerd (observed on workerd
 * 2026-11-17): target and currentTarget are undefined until the first dispatch and keep their
 * values after it; the stop-propagation flags are never reset, so an event stopped once runs no
 * listener again; dispatch clears a cancelation made before it; dispatchEvent answers false when a
 * listener called preventDefault, even on an event that is not cancelable; returnValue is read-only;
 * timeStamp is 0; there is no initEvent.
 */
import { ObjectDefineProperty, SafeWeakSet, TypeErrorCtor } from '../primordials.ts';
import {
  defineWorkerdInterface,
  illegalInvocation,
  requireArguments,
  toBoolean,
  toDOMString,
} from '../webidl.ts';

export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

/** Reads an EventInit dictionary member by member, in the order WebIDL reads them. */
export function readEventInit(init: unknown, owner = 'Event', type = 'Init'): Required<EventInit> {
  if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function') {
    throw new TypeErrorCtor(
      `Failed to construct '${owner}': constructor parameter 2 is not of type '${type}'.`,
    );
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
  setCurrentTarget(event: Event, target: object): void;
  endDispatch(event: Event): void;
  stoppedImmediately(event: Event): boolean;
  /** Whether a listener of the current dispatch called preventDefault: dispatchEvent's answer. */
  preventDefaultCalled(event: Event): boolean;
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
  #target: object | undefined = undefined;
  #currentTarget: object | undefined = undefined;
  #phase = 0;
  #preventDefaultCalled = false;
  #stopPropagation = false;
  #stopImmediate = false;
  #passive = false;
  #dispatching = false;

  constructor(type: string, init?: EventInit) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'constructor', 'Event', ['string']);
    this.#type = toDOMString(type);
    const { bubbles, cancelable, composed } = readEventInit(init);
    this.#bubbles = bubbles;
    this.#cancelable = cancelable;
    this.#composed = composed;
  }

  static {
    eventSlots = {
      isEvent: (value): value is Event => typeof value === 'object' && value !== null && #type in value,
      beginDispatch: (event, target) => {
        event.#dispatching = true;
        event.#target = target;
        event.#phase = Event.AT_TARGET;
        event.#preventDefaultCalled = false;
      },
      setCurrentTarget: (event, target) => {
        event.#currentTarget = target;
      },
      endDispatch: (event) => {
        event.#dispatching = false;
        event.#phase = Event.NONE;
      },
      stoppedImmediately: (event) => event.#stopImmediate,
      preventDefaultCalled: (event) => event.#preventDefaultCalled,
      inPassiveListener: (event, passive) => {
        event.#passive = passive;
      },
      dispatching: (event) => event.#dispatching,
      setTrusted: (event) => {
        trusted.add(event);
      },
    };
  }

  // The members in workerd's order of the prototype's keys.
  get type(): string {
    return check(this).#type;
  }
  get eventPhase(): number {
    return check(this).#phase;
  }
  get composed(): boolean {
    return check(this).#composed;
  }
  get bubbles(): boolean {
    return check(this).#bubbles;
  }
  get cancelable(): boolean {
    return check(this).#cancelable;
  }
  get defaultPrevented(): boolean {
    const event = check(this);
    return event.#cancelable && event.#preventDefaultCalled;
  }
  get returnValue(): boolean {
    const event = check(this);
    return !(event.#cancelable && event.#preventDefaultCalled);
  }
  get currentTarget(): object | undefined {
    return check(this).#currentTarget;
  }
  get target(): object | undefined {
    return check(this).#target;
  }
  get srcElement(): object | undefined {
    return check(this).#target;
  }
  get timeStamp(): number {
    check(this);
    return 0;
  }
  get isTrusted(): boolean {
    return trusted.has(check(this));
  }
  get cancelBubble(): boolean {
    return check(this).#stopPropagation;
  }
  set cancelBubble(value: boolean) {
    check(this).#stopPropagation = toBoolean(value);
  }
  stopImmediatePropagation(): void {
    const event = check(this);
    event.#stopPropagation = true;
    event.#stopImmediate = true;
  }
  preventDefault(): void {
    const event = check(this);
    if (!event.#passive) event.#preventDefaultCalled = true;
  }
  stopPropagation(): void {
    check(this).#stopPropagation = true;
  }
  composedPath(): object[] {
    const event = check(this);
    return event.#dispatching && event.#currentTarget !== undefined ? [event.#currentTarget] : [];
  }
}

const trusted = new SafeWeakSet<object>();

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
  for (const target of [Event.prototype, Event]) {
    ObjectDefineProperty(target, name, { value, writable: false, enumerable: true, configurable: true });
  }
}
defineWorkerdInterface(Event);
