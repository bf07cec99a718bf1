/**
 * ErrorEvent (HTML, https://html.spec.whatwg.org/multipage/webappapis.html#errorevent),
 * CustomEvent (DOM) and PromiseRejectionEvent (HTML): the event kinds the runtime fires or a
 * program may build.
 */
import { TypeErrorCtor } from '../primordials.ts';
import {
  defineWorkerdInterface,
  illegalInvocation,
  requireArguments,
  toDOMString,
  toInteger,
} from '../webidl.ts';
import { Event, type EventInit, readEventInit } from './event.ts';

export interface ErrorEventInit extends EventInit {
  message?: string;
  filename?: string;
  lineno?: number;
  colno?: number;
  error?: unknown;
}

export class ErrorEvent extends Event {
  #message: string;
  #filename: string;
  #lineno: number;
  #colno: number;
  #error: unknown;

  constructor(type: string, init?: ErrorEventInit) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'constructor', 'ErrorEvent', ['string']);
    readEventInit(init, 'ErrorEvent', 'ErrorEventInit');
    super(type, init);
    const dictionary = (init ?? {}) as ErrorEventInit;
    this.#message = dictionary.message === undefined ? '' : toDOMString(dictionary.message);
    this.#filename = dictionary.filename === undefined ? '' : toDOMString(dictionary.filename);
    // workerd keeps a negative line or column (a signed conversion), where WebIDL's is unsigned.
    this.#lineno = dictionary.lineno === undefined ? 0 : toInteger(dictionary.lineno, 32, true);
    this.#colno = dictionary.colno === undefined ? 0 : toInteger(dictionary.colno, 32, true);
    this.#error = dictionary.error;
  }

  static #check(value: unknown): ErrorEvent {
    if (typeof value !== 'object' || value === null || !(#message in value)) throw illegalInvocation();
    return value as ErrorEvent;
  }

  get filename(): string {
    return ErrorEvent.#check(this).#filename;
  }
  get message(): string {
    return ErrorEvent.#check(this).#message;
  }
  get lineno(): number {
    return ErrorEvent.#check(this).#lineno;
  }
  get colno(): number {
    return ErrorEvent.#check(this).#colno;
  }
  get error(): unknown {
    return ErrorEvent.#check(this).#error;
  }
}

export class CustomEvent extends Event {
  #detail: unknown;

  constructor(type: string, init?: EventInit & { detail?: unknown }) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'constructor', 'CustomEvent', ['string']);
    readEventInit(init, 'CustomEvent', 'CustomEventInit');
    super(type, init);
    // workerd leaves a missing detail undefined; the DOM standard's default is null.
    this.#detail = init?.detail;
  }

  get detail(): unknown {
    if (typeof this !== 'object' || this === null || !(#detail in this)) throw illegalInvocation();
    return this.#detail;
  }
}

/**
 * The event of unhandled rejections. Nothing here fires it (the engine does not report unhandled
 * rejections), and as in workerd a program cannot construct one.
 */
export class PromiseRejectionEvent extends Event {
  #promise: unknown;
  #reason: unknown;

  constructor() {
    throw new TypeErrorCtor('Illegal constructor');
    // biome-ignore lint/correctness/noUnreachable: a derived constructor must name super.
    super('');
  }

  static #check(value: unknown): PromiseRejectionEvent {
    if (typeof value !== 'object' || value === null || !(#promise in value)) throw illegalInvocation();
    return value as PromiseRejectionEvent;
  }

  get promise(): unknown {
    return PromiseRejectionEvent.#check(this).#promise;
  }
  get reason(): unknown {
    return PromiseRejectionEvent.#check(this).#reason;
  }
}

for (const target of [ErrorEvent, CustomEvent, PromiseRejectionEvent]) defineWorkerdInterface(target);
