/**
 * RUN_SUPPORT_SOURCE (entry/internal-module.ts): the sandbox's machinery for one run, called once per
 * isolate while the isolate is prepared, before any user code exists: the provider namespaces, and
 * startRun, which the entry calls with the user arrow. It leaves global scope, races the arrow
 * against the run clock's expiry, and reports the outcome through the __resultJson accessor.
 * Everything the envelope depends on (JSON, Promise, the codec) is bound here, at a time no
 * program could have replaced it yet.
 */
import type { HostReference, RunSupport, RuntimeInternals, SandboxGlobal } from './host.ts';

/** The dispatch codec (DISPATCH_CODEC_SOURCE), declared in the scope this function is defined in. */
declare const __parseForDispatch: (text: string) => unknown;
declare const __stringifyForDispatch: (value: unknown) => string;

export interface RunSupportValues {
  /** DISPATCH_OUTSIDE_ENVELOPE_MESSAGE. */
  readonly outsideEnvelope: string;
  /** ERROR_NAME_LIMIT: the most of a thrown error's name that leaves the isolate. */
  readonly nameLimit: number;
  /** STACK_READ_LIMIT (errors/stack.ts): the most of a thrown error's stack text that leaves the isolate. */
  readonly stackReadLimit: number;
}

type Handler = (request: unknown) => unknown;

export default function createRunSupport(
  values: RunSupportValues,
  internals: RuntimeInternals,
  signal: HostReference,
): RunSupport {
  const __global = globalThis as SandboxGlobal;
  const __internals = internals;
  const __scope = __internals.scope;
  const __signal = signal;
  const __dispatch = __global.__dispatch;
  const __timeoutExpired = __global.__timeoutExpired;
  const __Proxy = Proxy;
  const __Promise = Promise;
  const __Error = Error;
  const __String = String;
  const __apply = Reflect.apply;
  const __then = Promise.prototype.then;
  const __hasOwn = Object.hasOwn;
  const __hasInstance = Function.prototype[Symbol.hasInstance];
  const __defineProperty = Object.defineProperty;
  const __imul = Math.imul;
  const __rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
  const __http = __internals.http;
  const __loadedNamespaces = __internals.loadedNamespaces as Map<unknown, unknown>;
  const __mapSet = Map.prototype.set;
  const __signalSync = __signal.applySync;
  const __outsideEnvelope = values.outsideEnvelope;
  // Fixed arity, never a spread: an array spread walks Array.prototype[Symbol.iterator], which the
  // program may have replaced with one that throws, and a report that throws delivers nothing.
  const __notify = (kind: string, first?: unknown, second?: unknown, third?: unknown) =>
    __apply(__signalSync, __signal, [undefined, [kind, first, second, third]]);
  const __errors = __internals.errors;
  const __mark = __errors.mark;
  const __kindOf = __errors.kindOf;
  const __slice = String.prototype.slice;
  const __nameLimit = values.nameLimit;
  const __stackReadLimit = values.stackReadLimit;

  /** The text an uncaught failure reports: an Error's message, or String of anything else. */
  const __describe = (error: unknown) => {
    try {
      if (__apply(__hasInstance, __Error, [error])) return __String((error as Error).message);
      return __String(error);
    } catch {
      return 'The program failed with a value that cannot be turned into text.';
    }
  };

  /** Calls a tool and unwraps its result envelope. */
  const __callTool = async (provider: string, tool: string, argsJson: string) => {
    const resultJson = await __dispatch(provider, tool, argsJson);
    let data: unknown;
    try {
      data = __parseForDispatch(resultJson);
    } catch {
      data = null;
    }
    if (data === null || typeof data !== 'object')
      throw __mark(new __Error(__outsideEnvelope), 'tool-failed');
    const envelope = data as { error?: unknown; errorKind?: unknown; result?: unknown };
    if (__hasOwn(envelope, 'error') && envelope.error) {
      // Whoever serves the tools says when no tool of that name exists (toolNotFoundEnvelope);
      // any other error answer is a tool that failed.
      const kind = envelope.errorKind === 'tool-not-found' ? 'tool-not-found' : 'tool-failed';
      throw __mark(new __Error(envelope.error as string), kind);
    }
    return __hasOwn(envelope, 'result') ? envelope.result : undefined;
  };

  const __reject = (error: unknown) => new __Promise((_resolve, reject) => reject(error));

  /**
   * The namespace object of one provider. A property written onto it wins over a tool of that
   * name; symbols and 'then' are never tools, so the namespace is not thenable and inspection
   * protocols find nothing. With positional arguments the tool gets the argument list; otherwise
   * one object.
   */
  const __provider = (name: string, positional: boolean) =>
    new __Proxy(
      {},
      {
        get: (target: Record<PropertyKey, unknown>, toolName) => {
          if (__hasOwn(target, toolName)) return target[toolName];
          if (typeof toolName === 'symbol' || toolName === 'then') return undefined;
          const tool = __String(toolName);
          // Not async itself: an async function returning a promise would resolve it through its
          // observable 'then', which a program may have replaced.
          return (...args: unknown[]) => {
            try {
              return __callTool(
                name,
                tool,
                __stringifyForDispatch(
                  positional ? args : args.length === 0 || args[0] === undefined ? {} : args[0],
                ),
              );
            } catch (error) {
              return __reject(error);
            }
          };
        },
      },
    );

  const __race = (first: Promise<unknown>, second: Promise<unknown>) =>
    new __Promise((resolve, reject) => {
      __apply(__then, first, [resolve, reject]);
      __apply(__then, second, [resolve, reject]);
    });

  /** A thrown error's name or stack text, at most `limit` code units of it; undefined when it has none. */
  const __textOf = (error: unknown, key: 'name' | 'stack', limit: number) => {
    try {
      if (!__apply(__hasInstance, __Error, [error])) return undefined;
      const value = (error as Error)[key];
      if (key === 'stack' && typeof value !== 'string') return undefined;
      return __apply(__slice, __String(value), [0, limit]) as string;
    } catch {
      return undefined;
    }
  };

  /**
   * The outcome of a run that failed with `error`: its text, the kind the host observed when the
   * error is one the runtime or the sandbox raised for an observed cause and still carries the
   * message it was raised with, `thrown` for anything else, and the error's name and stack as data.
   */
  const __failure = (error: unknown) => {
    const message = __describe(error);
    const observed = __kindOf(error);
    return {
      message,
      kind: observed !== undefined && observed[1] === message ? observed[0] : 'thrown',
      name: __textOf(error, 'name', __nameLimit),
      stack: __textOf(error, 'stack', __stackReadLimit),
    };
  };

  /**
   * Reports the outcome once: a value the codec cannot carry becomes the error it raised. A
   * failure's kind, name and stack go to the host through the signal reference, which no program
   * reaches, immediately before the envelope: nothing runs between the two, so the host pairs them
   * with the envelope it receives next. An envelope a program assigns itself arrives with none.
   */
  const __report = (envelope: object, failure?: ReturnType<typeof __failure>) => {
    let json: string;
    let reported = failure;
    try {
      json = __stringifyForDispatch(envelope);
    } catch (error) {
      reported = __failure(error);
      json = __stringifyForDispatch({ __proto__: null, error: reported.message });
    }
    if (reported !== undefined) __notify('failed', reported.kind, reported.name, reported.stack);
    __global.__resultJson = json;
  };

  const __reportFailure = (error: unknown) => {
    const failure = __failure(error);
    __report({ __proto__: null, error: failure.message }, failure);
  };

  /**
   * The retained-handler invoker: builds a Request from the wire shape, calls the handler, and
   * answers a frame, ['returned', response] or ['thrown', text]. It never rejects. It refuses an
   * answer that is not a Response, reading the runtime's own state rather than public getters.
   */
  const __invoker = (handler: Handler) => async (wire: unknown) => {
    try {
      const answer = await handler(__http.requestFromWire(wire));
      if (!__http.isResponse(answer))
        return ['thrown', "Incorrect type for Promise: the Promise did not resolve to 'Response'."];
      return ['returned', await __http.responseToWire(answer)];
    } catch (error) {
      return ['thrown', __describe(error)];
    }
  };

  /**
   * The tail of a run that asked to retain handles: a bare function or an object with a fetch
   * method becomes the invoker, and the envelope stays empty. Anything else reports as usual. It
   * opens by deleting __invokeHandle, so a program cannot plant its own invoker and pass for a
   * grant; a plant the delete cannot remove throws (this code is strict) and the run reports that
   * error. The name is then defined for good, so nothing can be planted afterwards either.
   */
  const __retain = (result: unknown) => {
    delete __global.__invokeHandle;
    const handler: Handler | undefined =
      typeof result === 'function'
        ? (result as Handler)
        : result !== null &&
            typeof result === 'object' &&
            typeof (result as { fetch?: unknown }).fetch === 'function'
          ? (request) => (result as { fetch: Handler }).fetch(request)
          : undefined;
    __defineProperty(__global, '__invokeHandle', {
      value: handler === undefined ? undefined : __invoker(handler),
    });
    return handler === undefined ? { __proto__: null, result } : { __proto__: null };
  };

  /**
   * A durable run (docs/durable.md) starts from what its journal holds: the clock reads the time
   * the run started at and moves only with the time host settlements carry (dispatch.ts), and
   * Math.random draws from a generator seeded by the journal's seed (xoshiro128**), so a replay
   * computes what the original run computed.
   */
  const __startDurable = (durable: readonly number[]) => {
    __internals.virtualClock.now = durable[4] as number;
    let a = (durable[0] as number) | 0;
    let b = (durable[1] as number) | 0;
    let c = (durable[2] as number) | 0;
    let d = (durable[3] as number) | 0;
    const { random } = {
      random(): number {
        const result = __imul(__rotl(__imul(b, 5), 7), 9) >>> 0;
        const t = b << 9;
        c ^= a;
        d ^= b;
        b ^= c;
        a ^= d;
        c ^= t;
        d = __rotl(d, 11);
        return result / 4294967296;
      },
    };
    __internals.nativeSource(random, 'random');
    __defineProperty(Math, 'random', {
      value: random,
      writable: true,
      enumerable: false,
      configurable: true,
    });
  };

  const __startRun = (
    start: () => Promise<unknown>,
    timeoutMessage: string,
    retain?: boolean,
    durable?: readonly number[],
  ) => {
    if (durable !== undefined) __startDurable(durable);
    __scope.global = false;
    __notify('started');
    const expired = __apply(__then, __timeoutExpired, [
      () => {
        throw new __Error(timeoutMessage);
      },
    ]);
    const running = start();
    __apply(__then, __race(running, expired), [
      (result: unknown) => {
        let envelope: object;
        try {
          envelope = retain ? __retain(result) : { __proto__: null, result };
        } catch (error) {
          return __reportFailure(error);
        }
        __report(envelope);
      },
      __reportFailure,
    ]);
  };

  /** A loader root calls this once the module it imports has evaluated: back to the run's scope. */
  const __loaded = (token: unknown, namespace: unknown) => {
    __scope.global = false;
    __notify('loaded', token);
    __apply(__mapSet, __loadedNamespaces, [token, namespace]);
  };

  /** Called by the scope module each loader root imports first: the loaded module's top level runs in global scope. */
  const __enterGlobalScope = () => {
    __scope.global = true;
  };

  return {
    provider: __provider,
    startRun: __startRun,
    loaded: __loaded,
    enterGlobalScope: __enterGlobalScope,
  };
}
