/**
 * DISPATCH_SOURCE (dispatch.ts): __dispatch over the dispatch reference. A frame crosses as one
 * string, its kind ('r' returned, 't' thrown, 'c' thrown because the run had completed) ahead of
 * its payload: a thrown frame becomes an Error with its text, thrown behind the boundary and
 * recorded with its kind for the envelope's errorKind; a `returned` frame yields its JSON string.
 * A number in place of the frame is a long answer the host holds: it is taken at once with a
 * synchronous call, where a copy past the memory limit ends the run cleanly (crossing/answers.ts).
 * In global scope (a module's top level) the call is refused, as workerd refuses I/O there.
 *
 * A call is two crossings, the floor of an asynchronous call: it leaves with applyIgnored, under
 * a number of its own, and its answer comes back as a call of the function this installer
 * returns, which the host holds. An apply whose host promise is still pending when the host
 * function returns crosses three times (its completion, then the promise's settlement in a task of
 * its own), which measured about a fifth of an in-process tool call.
 */
import type { HostReference, SandboxGlobal } from './host.ts';

export interface DispatchValues {
  /** ANSWER_GONE_MESSAGE. */
  readonly answerGone: string;
  /** PAYLOAD_LIMIT: what one call's texts, and the texts of the calls in flight together, may be. */
  readonly payloadLimit: number;
  /** The host's refusal of one call past it, with a NUL where the size goes. */
  readonly callTooLarge: string;
  /** The host's refusal of calls in flight past it together, with a NUL where the size goes. */
  readonly inFlightTooLarge: string;
}

/**
 * What the host calls with a call's number and its answer: an encoded frame, or the number it is
 * held under; in a durable run also the time the settlement carries. Answers the settlement's
 * sequence in this isolate's order, or undefined when no call waits under that number.
 */
export type DispatchAnswer = (call: number, answer: unknown, time?: unknown) => number | undefined;

interface PendingCall {
  readonly resolve: (json: string) => void;
  readonly reject: (error: unknown) => void;
  /** The characters of its texts, counted in flight until its answer arrives. */
  readonly size: number;
}

export default function installDispatch(values: DispatchValues, hostDispatch: HostReference): DispatchAnswer {
  const internals = (globalThis as SandboxGlobal).__runtimeInternals;
  const assertRequestScope = internals.assertRequestScope;
  const mark = internals.errors.mark;
  const clock = internals.virtualClock;
  const apply = Reflect.apply;
  const applyHostIgnored = hostDispatch.applyIgnored;
  const applyHostSync = hostDispatch.applySync;
  const Promise_ = Promise;
  const Error_ = Error;
  const String_ = String;
  const slice = String.prototype.slice;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const answerGone = values.answerGone;
  const pending = new Map<number, PendingCall>();
  let lastCall = 0;
  // The characters of the calls whose answers have not arrived.
  let inFlight = 0;
  const payloadLimit = values.payloadLimit;
  const split = String.prototype.split;
  const callTooLarge = apply(split, values.callTooLarge, ['\u0000']) as string[];
  const inFlightTooLarge = apply(split, values.inFlightTooLarge, ['\u0000']) as string[];
  const refusal = (texts: string[], size: number) =>
    mark(new Error_((texts[0] as string) + size + (texts[1] as string)), 'tool-failed');
  // Characters from which a call's texts cross in an array: isolated-vm makes a string of 1024
  // bytes or more an external string, and a two-byte string of 512 characters is 1024 bytes.
  const LONG = 512;
  // Options that copy the arguments (the array is serialized), with no prototype to read through.
  const COPIED = { __proto__: null, arguments: { __proto__: null, copy: true } };
  // A thrown frame is a tool call that failed, or ('c') one that arrived after its run completed.
  const settle = (frame: unknown, call: PendingCall) => {
    if (typeof frame !== 'string') return call.reject(mark(new Error_(answerGone), 'tool-failed'));
    if (frame[0] === 'r') return call.resolve(apply(slice, frame, [1]));
    const kind = frame[0] === 'c' ? 'execution-completed' : 'tool-failed';
    call.reject(mark(new Error_(apply(slice, frame, [1])), kind));
  };
  // A durable run's settlements, counted in the order this isolate observes them: the sequence the
  // host journals each under, whatever order its deliveries were queued or run inline in.
  let observed = 0;
  // The timers count their expiries in the same sequence (inside/timers.ts), and fetch its answers
  // (the runtime's fetch.ts).
  clock.observe = () => ++observed;
  const answer: DispatchAnswer = (id, value, time) => {
    const call: PendingCall | undefined = apply(mapGet, pending, [id]);
    if (call === undefined) return undefined;
    apply(mapDelete, pending, [id]);
    inFlight -= call.size;
    if (typeof time === 'number') {
      // A durable run's clock moves with the time the settlement carries, never backwards.
      const now = clock.now;
      if (now === undefined || time > now) clock.now = time;
    }
    const sequence = ++observed;
    if (typeof value !== 'number') {
      settle(value, call);
      return sequence;
    }
    let frame: unknown;
    try {
      frame = apply(applyHostSync, hostDispatch, [undefined, [value]]);
    } catch (error) {
      call.reject(error);
      return sequence;
    }
    settle(frame, call);
    return sequence;
  };
  const dispatch = function __dispatch(provider: unknown, tool: unknown, argsJson: unknown) {
    return new Promise_<string>((resolve, reject) => {
      assertRequestScope();
      const texts = [String_(provider), String_(tool), String_(argsJson)];
      const size = (texts[0] as string).length + (texts[1] as string).length + (texts[2] as string).length;
      // The host refuses a call past the payload limit, alone or with the calls in flight, but only
      // once its texts have crossed: a string of a billion characters costs the program next to
      // nothing (a rope) and the host a flat copy. So the same refusals are made here first, and a
      // refused call takes no number (a durable run journals each number).
      if (size > payloadLimit) return reject(refusal(callTooLarge, size));
      if (inFlight + size > payloadLimit) return reject(refusal(inFlightTooLarge, inFlight + size));
      const call = ++lastCall;
      apply(mapSet, pending, [call, { resolve, reject, size }]);
      inFlight += size;
      try {
        // A string of 1 KiB or more crosses on its own as an external string of the host, whose
        // bytes the host's collector does not weigh: a program awaiting call after call with long
        // arguments left gigabytes of them uncollected in the host. In an array copied across,
        // they arrive as the host's own strings, collected like any other.
        if (size >= LONG) apply(applyHostIgnored, hostDispatch, [undefined, [call, texts], COPIED]);
        else apply(applyHostIgnored, hostDispatch, [undefined, [call, texts[0], texts[1], texts[2]]]);
      } catch (error) {
        apply(mapDelete, pending, [call]);
        inFlight -= size;
        throw error;
      }
    });
  };
  Object.defineProperty(globalThis, '__dispatch', {
    value: dispatch,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  return answer;
}
