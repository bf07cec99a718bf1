/**
 * ErrorEvent (HTML, https://html.spec.whatwg.org/multipage/webappapis.html#errorevent),
 * CustomEvent (DOM) and PromiseRejectionEvent (HTML): the event kinds the runtime fires or a
 * program may build.
 */
import { ObjectDefineProperty } from '../primordials.ts';
import { defineInterface, illegalInvocation, requireArguments, toDOMString, toInteger } from '../webidl.ts';
import { Event, type EventInit } from './event.ts';

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
    requireArguments(arguments.length, 1, 'constructor', 'ErrorEvent');
    super(type, init);
    const dictionary = (init ?? {}) as ErrorEventInit;
    this.#message = dictionary.message === undefined ? '' : toDOMString(dictionary.message);
    this.#filename = dictionary.filename === undefined ? '' : toDOMString(dictionary.filename);
    this.#lineno = dictionary.lineno === undefined ? 0 : toInteger(dictionary.lineno, 32, false);
    this.#colno = dictionary.colno === undefined ? 0 : toInteger(dictionary.colno, 32, false);
    this.#error = dictionary.error;
  }

  static #check(value: unknown): ErrorEvent {
    if (typeof value !== 'object' || value === null || !(#message in value)) throw illegalInvocation();
    return value as ErrorEvent;
  }

  get message(): string {
    return ErrorEvent.#check(this).#message;
  }
  get filename(): string {
    return ErrorEvent.#check(this).#filename;
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
    requireArguments(arguments.length, 1, 'constructor', 'CustomEvent');
    super(type, init);
    this.#detail = init?.detail ?? null;
  }

  get detail(): unknown {
    if (typeof this !== 'object' || this === null || !(#detail in this)) throw illegalInvocation();
    return this.#detail;
  }
}

export class PromiseRejectionEvent extends Event {
  #promise: unknown;
  #reason: unknown;

  constructor(type: string, init: EventInit & { promise: unknown; reason?: unknown }) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 2, 'constructor', 'PromiseRejectionEvent');
    super(type, init);
    this.#promise = init.promise;
    this.#reason = init.reason;
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

for (const target of [ErrorEvent, CustomEvent, PromiseRejectionEvent]) defineInterface(target);
// The constructors' length counts required arguments only.
ObjectDefineProperty(PromiseRejectionEvent, 'length', { value: 2 });
