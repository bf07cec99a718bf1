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
/** The codec's replacer, which the noting walk calls for every value, as __stringifyForDispatch does. */
declare const __codecReplacer: (this: unknown, key: string, value: unknown) => unknown;

export interface RunSupportValues {
  /** DISPATCH_OUTSIDE_ENVELOPE_MESSAGE. */
  readonly outsideEnvelope: string;
  /** ERROR_NAME_LIMIT: the most of a thrown error's name that leaves the isolate. */
  readonly nameLimit: number;
  /** STACK_READ_LIMIT (errors/stack.ts): the most of a thrown error's stack text that leaves the isolate. */
  readonly stackReadLimit: number;
  /** ERROR_TOOL_LIMIT: the most of a failed call's provider and tool name that leaves the isolate. */
  readonly toolLimit: number;
  /** ERROR_JSON_LIMIT: the most of a thrown value's JSON that leaves the isolate. */
  readonly jsonLimit: number;
  /** NOTE_LIMIT, NOTE_WALK_VALUES, NOTE_WALK_DEPTH, NOTE_PATH_LIMIT (lost-values.ts). */
  readonly noteLimit: number;
  readonly walkValues: number;
  readonly walkDepth: number;
  readonly pathLimit: number;
  /** LOST_VALUE_TEXTS, each under its key with a `lost` prefix. */
  readonly lostFunctionDropped: string;
  readonly lostFunctionNull: string;
  readonly lostSymbolDropped: string;
  readonly lostSymbolNull: string;
  readonly lostUndefinedDropped: string;
  readonly lostUndefinedNull: string;
  readonly lostNan: string;
  readonly lostInfinity: string;
  readonly lostNegativeInfinity: string;
  readonly lostNegativeZero: string;
  readonly lostMap: string;
  readonly lostSet: string;
  readonly lostPromise: string;
  readonly lostError: string;
  readonly lostEmpty: string;
  /** PAYLOAD_LIMIT: what a retained handler's answer may hand the host. */
  readonly payloadLimit: number;
  /** HANDLER_ANSWER_TOO_LARGE_MESSAGE. */
  readonly answerTooLarge: string;
}

/** A tool call as its failure remembers it: the namespace, the tool, and where the program made it. */
interface ToolCall {
  readonly provider: string;
  readonly tool: string;
  /** An object whose `stack` V8 fills, lazily, with the frames of the call (Error.captureStackTrace). */
  readonly site: { stack?: unknown };
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
  const __notify = (
    kind: string,
    first?: unknown,
    second?: unknown,
    third?: unknown,
    fourth?: unknown,
    fifth?: unknown,
    sixth?: unknown,
    seventh?: unknown,
  ) =>
    __apply(__signalSync, __signal, [undefined, [kind, first, second, third, fourth, fifth, sixth, seventh]]);
  const __errors = __internals.errors;
  const __mark = __errors.mark;
  const __kindOf = __errors.kindOf;
  const __slice = String.prototype.slice;
  const __nameLimit = values.nameLimit;
  const __stackReadLimit = values.stackReadLimit;
  const __toolLimit = values.toolLimit;
  const __jsonLimit = values.jsonLimit;
  const __payloadLimit = values.payloadLimit;
  const __answerTooLarge = values.answerTooLarge;
  // V8's, not in the standard library's declarations this folder is checked against.
  const __captureStackTrace = (
    Error as unknown as { captureStackTrace: (target: object, above?: unknown) => void }
  ).captureStackTrace;
  const __jsonStringify = JSON.stringify;
  const __weakMapGet = WeakMap.prototype.get;
  const __weakMapSet = WeakMap.prototype.set;
  /**
   * Each failure a tool call raised, with the call: the hidden brand the report reads. A program
   * cannot add to it, so an error it builds or rethrows as its own never names a tool. A WeakMap
   * keeps no error alive.
   */
  const __calls = new WeakMap<object, ToolCall>();
  const __isArray = Array.isArray;
  const __isNaN = Number.isNaN;
  const __getPrototypeOf = Object.getPrototypeOf;
  const __keys = Object.keys;
  const __isPrototypeOf = Object.prototype.isPrototypeOf;
  const __objectToString = Object.prototype.toString;
  const __objectPrototype = Object.prototype;
  const __mapPrototype = Map.prototype;
  const __setPrototype = Set.prototype;
  const __promisePrototype = Promise.prototype;
  const __errorPrototype = Error.prototype;
  const __getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const __regExpTest = RegExp.prototype.test;
  const __identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const __setAdd = Set.prototype.add;
  const __setHas = Set.prototype.has;
  /** The distinct notes this run has sent, at most NOTE_LIMIT, and whether more were left out. */
  const __sentNotes = new Set<string>();
  let __notesSent = 0;
  let __notesOverflowed = false;

  /** The text an uncaught failure reports: an Error's message, or String of anything else. */
  const __describe = (error: unknown) => {
    try {
      if (__apply(__hasInstance, __Error, [error])) return __String((error as Error).message);
      return __String(error);
    } catch {
      return 'The program failed with a value that cannot be turned into text.';
    }
  };

  /** Sends the notes of one serialization that succeeded: each new one, up to NOTE_LIMIT, then the overflow once. */
  const __sendNotes = (notes: string[]) => {
    for (let index = 0; index < notes.length; index++) {
      const note = notes[index] as string;
      if (__apply(__setHas, __sentNotes, [note])) continue;
      if (__notesSent >= values.noteLimit) {
        if (!__notesOverflowed) __notify('notesOverflowed');
        __notesOverflowed = true;
        return;
      }
      __apply(__setAdd, __sentNotes, [note]);
      __notesSent++;
      __notify('note', note);
    }
  };

  /** One segment of a note's path: `[0]` in a list, `.key` or `["key"]` in an object, a first key bare. */
  const __segment = (holder: unknown, key: string, first: boolean) => {
    if (__isArray(holder)) return `[${key}]`;
    if (__apply(__regExpTest, __identifier, [key])) return first ? key : `.${key}`;
    return `[${__jsonStringify(key.length > 64 ? `${__apply(__slice, key, [0, 64])}…` : key)}]`;
  };

  /** The name of an object's class for a note: its toStringTag, else its constructor's name. */
  const __className = (value: object, prototype: object) => {
    const tag = __apply(__slice, __apply(__objectToString, value, []) as string, [8, -1]) as string;
    if (tag !== 'Object') return tag;
    const maker = __getOwnPropertyDescriptor(prototype, 'constructor')?.value as { name?: unknown };
    const name = typeof maker === 'function' ? maker.name : undefined;
    return typeof name === 'string' && name !== '' ? __apply(__slice, name, [0, 64]) : 'object';
  };

  /** What JSON does to `value` without a word, or undefined when it carries it as it is. */
  const __lostText = (value: unknown, inList: boolean, replaced: unknown): string | undefined => {
    switch (typeof value) {
      case 'undefined':
        return inList ? values.lostUndefinedNull : values.lostUndefinedDropped;
      case 'function':
        return inList ? values.lostFunctionNull : values.lostFunctionDropped;
      case 'symbol':
        return inList ? values.lostSymbolNull : values.lostSymbolDropped;
      case 'number':
        if (__isNaN(value)) return values.lostNan;
        if (value === Infinity) return values.lostInfinity;
        if (value === -Infinity) return values.lostNegativeInfinity;
        return value === 0 && 1 / value < 0 ? values.lostNegativeZero : undefined;
      case 'object': {
        // A binary value or an escaped object: the codec carries it in a shape of its own.
        if (value === null || replaced !== value || __isArray(value)) return undefined;
        const prototype = __getPrototypeOf(value) as object | null;
        if (prototype === null || prototype === __objectPrototype) return undefined;
        if (__apply(__isPrototypeOf, __mapPrototype, [value])) return values.lostMap;
        if (__apply(__isPrototypeOf, __setPrototype, [value])) return values.lostSet;
        if (__apply(__isPrototypeOf, __promisePrototype, [value])) return values.lostPromise;
        if (__apply(__isPrototypeOf, __errorPrototype, [value])) return values.lostError;
        if (__keys(value).length > 0) return undefined;
        return `a ${__className(value, prototype)} ${values.lostEmpty}`;
      }
      default:
        return undefined;
    }
  };

  /**
   * __stringifyForDispatch(value), noting what lost information on the way (lost-values.ts). The
   * walk rides on the codec's own: JSON.stringify calls the replacer for every value, its holder
   * as `this`, depth first, so a stack of holders gives each value's path. It looks at the first
   * NOTE_WALK_VALUES values down to NOTE_WALK_DEPTH; a note the walk cannot make (a trap that
   * throws) is left out, never the serialization. The notes leave only once the text exists.
   * `prefix` starts each path; `from` is the depth whose values are looked at first (1 for a
   * result, to pass over the envelope around it).
   */
  const __stringifyNoting = (value: unknown, prefix: string, from: number) => {
    const holders: unknown[] = [];
    const keys: string[] = [];
    let depth = 0;
    let budget = values.walkValues;
    const notes: string[] = [];
    const replacer = function (this: unknown, key: string, item: unknown) {
      const replaced = __apply(__codecReplacer, this, [key, item]);
      if (budget <= 0) return replaced;
      budget--;
      // Back up to this value's holder: the walk is depth first, so it is on the stack.
      while (depth > 0 && holders[depth - 1] !== this) depth--;
      // One note past the limit, so the overflow is known.
      if (depth >= from && depth <= values.walkDepth && notes.length <= values.noteLimit) {
        try {
          // The result itself absent is no loss: a run that returns nothing has no result.
          const top = depth === from && from > 0;
          const lost =
            top && item === undefined
              ? undefined
              : __lostText(item, __isArray(this) || depth === 0, replaced);
          if (lost !== undefined) {
            let path = prefix;
            for (let level = 1; level < depth; level++)
              path += __segment(holders[level - 1], keys[level] as string, path === '');
            if (depth > 0) path += __segment(this, key, path === '');
            if (path.length > values.pathLimit) path = `${__apply(__slice, path, [0, values.pathLimit])}…`;
            notes[notes.length] = `${path}: ${lost}`;
          }
        } catch {}
      }
      if (typeof replaced === 'object' && replaced !== null) {
        holders[depth] = replaced;
        keys[depth] = key;
        depth++;
      }
      return replaced;
    };
    const json = (__jsonStringify(value, replacer) as string | undefined) ?? 'null';
    if (notes.length > 0) __sendNotes(notes);
    return json;
  };

  /** Records `error` as raised by `call`; answers the error. */
  const __raisedBy = (error: unknown, call: ToolCall) => {
    if ((typeof error === 'object' && error !== null) || typeof error === 'function')
      __apply(__weakMapSet, __calls, [error, call]);
    return error;
  };

  /** Calls a tool and unwraps its result envelope. */
  const __callTool = async (call: ToolCall, argsJson: string) => {
    let resultJson: string;
    try {
      resultJson = await __dispatch(call.provider, call.tool, argsJson);
    } catch (error) {
      throw __raisedBy(error, call);
    }
    let data: unknown;
    try {
      data = __parseForDispatch(resultJson);
    } catch {
      data = null;
    }
    if (data === null || typeof data !== 'object')
      throw __raisedBy(__mark(new __Error(__outsideEnvelope), 'tool-failed'), call);
    const envelope = data as { error?: unknown; errorKind?: unknown; result?: unknown };
    if (__hasOwn(envelope, 'error') && envelope.error) {
      // Whoever serves the tools says when no tool of that name exists (toolNotFoundEnvelope);
      // any other error answer is a tool that failed.
      const kind = envelope.errorKind === 'tool-not-found' ? 'tool-not-found' : 'tool-failed';
      throw __raisedBy(__mark(new __Error(envelope.error as string), kind), call);
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
          const call = (...args: unknown[]) => {
            // Where the program called: V8 records the frames now and formats them only if the
            // report reads them, after a failure of this call ended the run.
            const site: { stack?: unknown } = { __proto__: null } as { stack?: unknown };
            __apply(__captureStackTrace, __Error, [site, call]);
            try {
              return __callTool(
                { provider: name, tool, site },
                __stringifyNoting(
                  positional ? args : args.length === 0 || args[0] === undefined ? {} : args[0],
                  `${name}.${tool} args`,
                  0,
                ),
              );
            } catch (error) {
              return __reject(error);
            }
          };
          return call;
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

  /** The frames V8 recorded at a tool call, at most STACK_READ_LIMIT of them; undefined when it has none. */
  const __siteOf = (call: ToolCall) => {
    try {
      const stack = call.site.stack;
      return typeof stack === 'string'
        ? (__apply(__slice, stack, [0, __stackReadLimit]) as string)
        : undefined;
    } catch {
      return undefined;
    }
  };

  /**
   * A thrown value's JSON, at most ERROR_JSON_LIMIT code units of it. The walk stops writing after
   * twice that many values and cuts long strings, so a large object costs no more than its start:
   * every value written adds a character at least, so the part kept is exact.
   */
  const __jsonOf = (value: unknown) => {
    let budget = 2 * __jsonLimit;
    try {
      const text: unknown = __jsonStringify(value, (_key: string, item: unknown) => {
        if (--budget < 0) return undefined;
        return typeof item === 'string' && item.length > __jsonLimit
          ? __apply(__slice, item, [0, __jsonLimit])
          : item;
      });
      return typeof text === 'string' ? (__apply(__slice, text, [0, __jsonLimit]) as string) : undefined;
    } catch {
      return undefined;
    }
  };

  /**
   * The outcome of a run that failed with `error`: its text, the kind the host observed when the
   * error is one the runtime or the sandbox raised for an observed cause and still carries the
   * message it was raised with, `thrown` for anything else, and the error's name and stack as data.
   * A tool call's own failure adds the call (provider, tool, where it was made); a thrown value that
   * is an object but no Error, whose text reads `[object Object]`, adds its JSON.
   */
  const __failure = (error: unknown) => {
    const message = __describe(error);
    const observed = __kindOf(error);
    const kind = observed !== undefined && observed[1] === message ? observed[0] : 'thrown';
    const call: ToolCall | undefined =
      kind === 'tool-failed' || kind === 'tool-not-found'
        ? __apply(__weakMapGet, __calls, [error])
        : undefined;
    const plainObject =
      kind === 'thrown' &&
      typeof error === 'object' &&
      error !== null &&
      !__apply(__hasInstance, __Error, [error]);
    return {
      message,
      kind,
      name: __textOf(error, 'name', __nameLimit),
      stack: __textOf(error, 'stack', __stackReadLimit),
      provider:
        call === undefined ? undefined : (__apply(__slice, call.provider, [0, __toolLimit]) as string),
      tool: call === undefined ? undefined : (__apply(__slice, call.tool, [0, __toolLimit]) as string),
      site: call === undefined ? undefined : __siteOf(call),
      json: plainObject ? __jsonOf(error) : undefined,
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
      // A failure's envelope holds only its text; a result is walked for what it loses.
      json = failure === undefined ? __stringifyNoting(envelope, '', 1) : __stringifyForDispatch(envelope);
    } catch (error) {
      reported = __failure(error);
      json = __stringifyForDispatch({ __proto__: null, error: reported.message });
    }
    if (reported !== undefined)
      __notify(
        'failed',
        reported.kind,
        reported.name,
        reported.stack,
        reported.provider,
        reported.tool,
        reported.site,
        reported.json,
      );
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
      const response = (await __http.responseToWire(answer)) as {
        readonly statusText: string;
        readonly headers: readonly (readonly [string, string])[];
      };
      // Its texts measured before they cross, as the host measures the whole after: a status text or
      // header value made by repeat() costs the program a few bytes and the host its flat copy. The
      // body's bytes are the isolate's own, metered by its limit, and measured by the host.
      let size = response.statusText.length;
      const headers = response.headers;
      for (let index = 0; index < headers.length; index++) {
        const pair = headers[index] as readonly [string, string];
        size += pair[0].length + pair[1].length;
      }
      if (size > __payloadLimit) return ['thrown', __answerTooLarge];
      return ['returned', response];
    } catch (error) {
      const text = __describe(error);
      return ['thrown', text.length > __payloadLimit ? __answerTooLarge : text];
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
