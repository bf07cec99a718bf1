/**
 * DISPATCH_SOURCE (dispatch.ts): __dispatch over the dispatch reference. A frame crosses as one
 * string, its kind ('r' returned, 't' thrown) ahead of its payload: a `thrown` frame becomes an
 * Error with its text, thrown behind the boundary; a `returned` frame yields its JSON string.
 * A number in place of the frame is a long answer the host holds: it is taken at once with a
 * synchronous call, where a copy past the memory limit ends the run cleanly (answers.ts).
 * In global scope (a module's top level) the call is refused, as workerd refuses I/O there.
 */
import type { HostReference, SandboxGlobal } from './host.ts';

export interface DispatchValues {
  /** ANSWER_GONE_MESSAGE. */
  readonly answerGone: string;
}

export default function installDispatch(values: DispatchValues, hostDispatch: HostReference): void {
  const assertRequestScope = (globalThis as SandboxGlobal).__runtimeInternals.assertRequestScope;
  const apply = Reflect.apply;
  const applyHost = hostDispatch.apply;
  const applyHostSync = hostDispatch.applySync;
  const then = Promise.prototype.then;
  const Promise_ = Promise;
  const Error_ = Error;
  const String_ = String;
  const slice = String.prototype.slice;
  const answerGone = values.answerGone;
  const options = { result: { promise: true } };
  const settle = (frame: unknown, resolve: (json: string) => void, reject: (error: unknown) => void) => {
    if (typeof frame !== 'string') return reject(new Error_(answerGone));
    if (frame[0] === 'r') resolve(apply(slice, frame, [1]));
    else reject(new Error_(apply(slice, frame, [1])));
  };
  const dispatch = function __dispatch(provider: unknown, tool: unknown, argsJson: unknown) {
    return new Promise_<string>((resolve, reject) => {
      assertRequestScope();
      const call = apply(applyHost, hostDispatch, [
        undefined,
        [String_(provider), String_(tool), String_(argsJson)],
        options,
      ]);
      apply(then, call, [
        (answer: unknown) => {
          if (typeof answer !== 'number') return settle(answer, resolve, reject);
          let frame: unknown;
          try {
            frame = apply(applyHostSync, hostDispatch, [undefined, [answer]]);
          } catch (error) {
            return reject(error);
          }
          settle(frame, resolve, reject);
        },
        (failure: { message?: unknown } | undefined) =>
          // biome-ignore lint/complexity/useOptionalChain: a falsy rejection reads as itself, as it always has.
          reject(new Error_(String_(failure && failure.message))),
      ]);
    });
  };
  Object.defineProperty(globalThis, '__dispatch', {
    value: dispatch,
    writable: false,
    enumerable: false,
    configurable: false,
  });
}
