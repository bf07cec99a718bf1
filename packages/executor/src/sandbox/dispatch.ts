/**
 * Tool calls across the boundary. A call leaves the isolate as three strings (provider, tool,
 * codec JSON of the arguments) and comes back as a two-element frame. The host reference always
 * resolves, never rejects: isolated-vm delivers a rejection into the isolate while the host still
 * records it as unhandled, so a failure travels inside the frame and is rethrown behind the
 * boundary, which also keeps host stack traces out of the sandbox.
 */
import {
  type DispatchFrame,
  type DispatchFunction,
  describeValue,
  EXECUTION_COMPLETED_MESSAGE,
  errorText,
  IN_FLIGHT_CALL_LIMIT,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
  toolNotFoundEnvelope,
} from '@supolka/codemode-protocol/wire';
import { pausedBy } from '../durable/pause.ts';
import type { DurableSession } from '../durable/session.ts';
import { HeldAnswers, inlineOrHeld } from './crossing/answers.ts';
import { DISPATCH_INSTALL_SOURCE } from './generated/sandbox-sources.generated.ts';
import type { DispatchValues } from './inside/dispatch.ts';
import { bindValues } from './setup/bound-source.ts';

/** Serves one tool call: resolves to the result envelope as JSON, `{"result":...}` or `{"error":"..."}`. */
export type { DispatchFunction };

/** Defined with the other bounds (the protocol's limits.ts), since the pool's parent enforces it too. */
export { IN_FLIGHT_CALL_LIMIT };

/** What the dispatch reference consults on every call; the sandbox fills it per run. */
export interface DispatchState {
  /** Set once the run settled: later calls are refused. */
  completed: boolean;
  /** The caller's function, already wrapped to pause the run clock; absent when the request declared none. */
  dispatch: DispatchFunction | undefined;
  /** Calls now in flight, and the argument bytes they hold. */
  inFlight: number;
  inFlightBytes: number;
  /** A durable run's session, which journals (or replays) every call; undefined for other runs. */
  durable: DurableSession | undefined;
}

export function createDispatchState(): DispatchState {
  return { completed: false, dispatch: undefined, inFlight: 0, inFlightBytes: 0, durable: undefined };
}

/**
 * The host half of __dispatch. Tests, in this order: a call after the run settled; a call whose
 * strings together pass PAYLOAD_LIMIT; calls past the in-flight bounds; a request with no dispatch
 * function (every tool is unknown); and otherwise what the caller's function returned or threw.
 */
export function hostDispatch(state: DispatchState) {
  return async (provider: string, tool: string, argsJson: string): Promise<DispatchFrame> => {
    if (state.completed) return ['thrown', EXECUTION_COMPLETED_MESSAGE];
    const size = provider.length + tool.length + argsJson.length;
    if (size > PAYLOAD_LIMIT)
      return ['thrown', new PayloadTooLargeError('tool call', size, PAYLOAD_LIMIT).message];
    if (state.inFlight >= IN_FLIGHT_CALL_LIMIT) {
      return [
        'thrown',
        `Too many tool calls are in flight: one execution may have at most ${IN_FLIGHT_CALL_LIMIT} at once.`,
      ];
    }
    if (state.inFlightBytes + size > PAYLOAD_LIMIT) {
      return [
        'thrown',
        new PayloadTooLargeError('set of tool calls in flight', state.inFlightBytes + size, PAYLOAD_LIMIT)
          .message,
      ];
    }
    const dispatch = state.dispatch;
    if (dispatch === undefined) {
      return ['returned', toolNotFoundEnvelope(provider, tool)];
    }
    state.inFlight++;
    state.inFlightBytes += size;
    try {
      const answer: unknown = await dispatch(provider, tool, argsJson);
      if (typeof answer !== 'string') {
        return [
          'thrown',
          `The dispatch function answered ${describeValue(answer)}, not the result envelope as JSON text.`,
        ];
      }
      if (answer.length > PAYLOAD_LIMIT) {
        return ['thrown', new PayloadTooLargeError('tool result', answer.length, PAYLOAD_LIMIT).message];
      }
      return ['returned', answer];
    } catch (error) {
      // A pause signal the caller's function let through pauses a durable run (durable/pause.ts).
      pausedBy(error);
      return ['thrown', errorText(error)];
    } finally {
      state.inFlight--;
      state.inFlightBytes -= size;
    }
  };
}

/**
 * A frame as it crosses into the isolate: its kind as one character ahead of its payload, so the
 * crossing moves one string instead of copying an array (measured 12 µs less per tool call):
 * 'r' returned, 't' thrown, 'c' thrown because the run had already completed.
 */
export function encodeFrame(frame: DispatchFrame): string {
  if (frame[0] === 'returned') return `r${frame[1]}`;
  // The refusal of a late call is told apart by its pinned text: the frame itself has no room for
  // a kind, and in a pool it is composed in the parent.
  return (frame[1] === EXECUTION_COMPLETED_MESSAGE ? 'c' : 't') + frame[1];
}

/**
 * Sends a call's answer into the isolate: the encoded frame when it is short, else the number it
 * is held under. With a time (a durable run's settlement), it also resolves to the sequence the
 * isolate observed the answer under.
 */
export type AnswerCall = (
  call: number,
  answer: string | number,
  time?: number,
) => Promise<number | undefined> | undefined;

/**
 * The function behind the dispatch reference. A call (its number and three strings, or the three in
 * an array when they are long) arrives with applyIgnored and returns nothing; its encoded frame goes back through `answer`, itself when it is
 * short, or the number the frame is held under (crossing/answers.ts): a tool result of megabytes arriving
 * asynchronously while the isolate is near its memory limit would otherwise abort the process. A
 * call with that number alone, made synchronously, takes the frame.
 */
export function dispatchReference(state: DispatchState, answer: AnswerCall) {
  const dispatch = hostDispatch(state);
  const held = new HeldAnswers<string>();
  return (
    call: number,
    first?: string | readonly string[],
    second?: string,
    third?: string,
  ): string | undefined => {
    if (first === undefined) return held.take(call);
    // Long texts come as one copied array, so they arrive as this heap's own strings (inside/dispatch.ts).
    const [provider, tool, argsJson] = (
      typeof first === 'string' ? [first, second, third] : first
    ) as readonly [string, string, string];
    const durable = state.durable;
    if (durable !== undefined) {
      durable.call(call, provider, tool, argsJson, {
        perform: () => dispatch(provider, tool, argsJson),
        deliver: (frame, time) => answer(call, inlineOrHeld(encodeFrame(frame), held), time),
      });
      return undefined;
    }
    // hostDispatch never rejects: every failure is a thrown frame.
    void dispatch(provider, tool, argsJson).then((frame) =>
      answer(call, inlineOrHeld(encodeFrame(frame), held)),
    );
    return undefined;
  };
}

/** Where a refusal's size goes in the texts the isolate is given (inside/dispatch.ts). */
export const SIZE_MARK = '\u0000';

/** The text a call fails with when its held answer is gone (the reference never answers so). */
export const ANSWER_GONE_MESSAGE = 'The answer of this call is no longer held by the host.';

/**
 * Publishes __dispatch over the dispatch reference it is called with. A `thrown` frame becomes
 * an Error with its text, thrown behind the boundary; a `returned` frame yields its JSON string.
 * A number in place of the frame is a long answer the host holds: it is taken at once with a
 * synchronous call, where a copy past the memory limit ends the run cleanly.
 * In global scope (a module's top level) the call is refused, as workerd refuses I/O there.
 * The code is inside/dispatch.ts.
 */
export const DISPATCH_SOURCE = bindValues(
  DISPATCH_INSTALL_SOURCE,
  {
    answerGone: ANSWER_GONE_MESSAGE,
    payloadLimit: PAYLOAD_LIMIT,
    callTooLarge: payloadText('tool call'),
    inFlightTooLarge: payloadText('set of tool calls in flight'),
  } satisfies DispatchValues,
  ['hostDispatch'],
);

/** The host's PayloadTooLargeError text about `what`, with SIZE_MARK where the isolate puts the size. */
function payloadText(what: string): string {
  return new PayloadTooLargeError(what, 0, PAYLOAD_LIMIT).message.replace(' 0 ', ` ${SIZE_MARK} `);
}
