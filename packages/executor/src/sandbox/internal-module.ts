/**
 * The sandbox's machinery for one run, as code inside the isolate: the provider namespaces, and
 * __startRun, which the entry calls with the user arrow. It leaves global scope, races the arrow
 * against the run clock's expiry, and reports the outcome through the __resultJson accessor.
 *
 * RUN_SUPPORT_SOURCE lives in the startup snapshot (sandbox-source.ts) and is called once per
 * isolate while the isolate is prepared, before any user code exists; the entry imports what it
 * returns through the small internal module below. That matters because user modules evaluate
 * before the entry's body: everything the envelope depends on (JSON, Promise, the codec) is bound
 * at a time no program could have replaced it yet.
 */
import { DISPATCH_OUTSIDE_ENVELOPE_MESSAGE } from '@supolka/codemode-protocol';

/**
 * The specifier the entry imports this module by. The resolver serves it to the entry and loader
 * roots only; a map key of the same name stays reachable from every other module.
 */
export const INTERNAL_SPECIFIER = 'codemode:sandbox';

/** The internal module: what RUN_SUPPORT_SOURCE returned for this isolate, as bindings. */
export const INTERNAL_MODULE_SOURCE = `const sandbox = globalThis.__runtimeInternals.sandbox;
delete globalThis.__runtimeInternals;
export const __provider = sandbox.provider;
export const __startRun = sandbox.startRun;
export const __loaded = sandbox.loaded;
export const __enterGlobalScope = sandbox.enterGlobalScope;
`;

export const RUN_SUPPORT_SOURCE = `((internals, signal) => {
const __global = globalThis;
const __internals = internals;
const __scope = __internals.scope;
const __signal = signal;
const __dispatch = globalThis.__dispatch;
const __timeoutExpired = globalThis.__timeoutExpired;
const __Proxy = Proxy;
const __Promise = Promise;
const __Error = Error;
const __String = String;
const __apply = Reflect.apply;
const __then = Promise.prototype.then;
const __hasOwn = Object.hasOwn;
const __hasInstance = Function.prototype[Symbol.hasInstance];
const __defineProperty = Object.defineProperty;
const __http = __internals.http;
const __loadedNamespaces = __internals.loadedNamespaces;
const __mapSet = Map.prototype.set;
const __signalSync = __signal.applySync;
const __notify = (kind, value) => __apply(__signalSync, __signal, [undefined, [kind, value]]);

/** The text an uncaught failure reports: an Error's message, or String of anything else. */
const __describe = (error) => {
  try {
    if (__apply(__hasInstance, __Error, [error])) return __String(error.message);
    return __String(error);
  } catch {
    return 'The program failed with a value that cannot be turned into text.';
  }
};

/** Calls a tool and unwraps its result envelope. */
const __callTool = async (provider, tool, argsJson) => {
  const resultJson = await __dispatch(provider, tool, argsJson);
  let data;
  try {
    data = __parseForDispatch(resultJson);
  } catch {
    data = null;
  }
  if (data === null || typeof data !== 'object') throw new __Error(${JSON.stringify(DISPATCH_OUTSIDE_ENVELOPE_MESSAGE)});
  if (__hasOwn(data, 'error') && data.error) throw new __Error(data.error);
  return __hasOwn(data, 'result') ? data.result : undefined;
};

/**
 * The namespace object of one provider. A property written onto it wins over a tool of that name;
 * symbols and 'then' are never tools, so the namespace is not thenable and inspection protocols
 * find nothing. With positional arguments the tool gets the argument list; otherwise one object.
 */
const __provider = (name, positional) =>
  new __Proxy({}, {
    get: (target, toolName) => {
      if (__hasOwn(target, toolName)) return target[toolName];
      if (typeof toolName === 'symbol' || toolName === 'then') return undefined;
      const tool = __String(toolName);
      // Not async itself: an async function returning a promise would resolve it through its
      // observable 'then', which a program may have replaced.
      return (...args) => {
        try {
          return __callTool(name, tool, __stringifyForDispatch(positional ? args : args.length === 0 || args[0] === undefined ? {} : args[0]));
        } catch (error) {
          return __reject(error);
        }
      };
    },
  });

const __reject = (error) => new __Promise((_resolve, reject) => reject(error));

const __race = (first, second) =>
  new __Promise((resolve, reject) => {
    __apply(__then, first, [resolve, reject]);
    __apply(__then, second, [resolve, reject]);
  });

/** Reports the outcome once: a value the codec cannot carry becomes the error it raised. */
const __report = (envelope) => {
  let json;
  try {
    json = __stringifyForDispatch(envelope);
  } catch (error) {
    json = __stringifyForDispatch({ __proto__: null, error: __describe(error) });
  }
  __global.__resultJson = json;
};

/**
 * The retained-handler invoker: builds a Request from the wire shape, calls the handler, and
 * answers a frame, ['returned', response] or ['thrown', text]. It never rejects. It refuses an
 * answer that is not a Response, reading the runtime's own state rather than public getters.
 */
const __invoker = (handler) => async (wire) => {
  try {
    const answer = await handler(__http.requestFromWire(wire));
    if (!__http.isResponse(answer)) return ['thrown', "Incorrect type for Promise: the Promise did not resolve to 'Response'."];
    return ['returned', await __http.responseToWire(answer)];
  } catch (error) {
    return ['thrown', __describe(error)];
  }
};

/**
 * The tail of a run that asked to retain handles: a bare function or an object with a fetch method
 * becomes the invoker, and the envelope stays empty. Anything else reports as usual. It opens by
 * deleting __invokeHandle, so a program cannot plant its own invoker and pass for a grant; a plant
 * the delete cannot remove throws (this code is strict) and the run reports that error. The name is
 * then defined for good, so nothing can be planted afterwards either.
 */
const __retain = (result) => {
  delete __global.__invokeHandle;
  const handler =
    typeof result === 'function'
      ? result
      : result !== null && typeof result === 'object' && typeof result.fetch === 'function'
        ? (request) => result.fetch(request)
        : undefined;
  __defineProperty(__global, '__invokeHandle', { value: handler === undefined ? undefined : __invoker(handler) });
  return handler === undefined ? { __proto__: null, result } : { __proto__: null };
};

const __startRun = (start, timeoutMessage, retain) => {
  __scope.global = false;
  __notify('started');
  const expired = __apply(__then, __timeoutExpired, [() => { throw new __Error(timeoutMessage); }]);
  const running = start();
  __apply(__then, __race(running, expired), [
    (result) => {
      let envelope;
      try {
        envelope = retain ? __retain(result) : { __proto__: null, result };
      } catch (error) {
        envelope = { __proto__: null, error: __describe(error) };
      }
      __report(envelope);
    },
    (error) => __report({ __proto__: null, error: __describe(error) }),
  ]);
};

/** A loader root calls this once the module it imports has evaluated: back to the run's scope. */
const __loaded = (token, namespace) => {
  __scope.global = false;
  __notify('loaded', token);
  __apply(__mapSet, __loadedNamespaces, [token, namespace]);
};

/** Called by the scope module each loader root imports first: the loaded module's top level runs in global scope. */
const __enterGlobalScope = () => {
  __scope.global = true;
};

return { provider: __provider, startRun: __startRun, loaded: __loaded, enterGlobalScope: __enterGlobalScope };
})`;
