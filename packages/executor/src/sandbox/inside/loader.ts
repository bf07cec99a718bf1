/**
 * LOADER_SOURCE (modules/loader.ts): __sandboxImport(referrer, specifier), which the rewritten import()
 * expressions call. It asks the host loader to load the module, then hands back the namespace the
 * loader root stored inside the isolate, so the program gets the real namespace object. The host
 * answers with its frame as JSON text when that is short, or with the number it holds the frame
 * under, taken at once with a synchronous call (crossing/answers.ts). In global scope the call is refused
 * with a message that says what to do instead (adr/0002), and past IN_FLIGHT_CALL_LIMIT loads waiting
 * at once the call is refused here, as a tool call past the same bound is.
 */
import type { HostReference, SandboxGlobal } from './host.ts';

export interface LoaderValues {
  /** GLOBAL_SCOPE_IMPORT_MESSAGE. */
  readonly globalScopeImport: string;
  /** IN_FLIGHT_CALL_LIMIT: the most loads one execution may wait on at once. */
  readonly inFlightLimit: number;
  /** IMPORTS_IN_FLIGHT_MESSAGE. */
  readonly tooManyImports: string;
  /** PAYLOAD_LIMIT: what the referrers and specifiers of the loads in flight may come to. */
  readonly namesLimit: number;
  /** IMPORT_NAMES_MESSAGE. */
  readonly namesTooLong: string;
}

type ErrorConstructorLike = new (message?: string) => Error;

export default function installLoader(values: LoaderValues, hostLoad: HostReference): void {
  const internals = (globalThis as SandboxGlobal).__runtimeInternals;
  const scope = internals.scope;
  const mark = internals.errors.mark;
  const namespaces = new Map<unknown, unknown>();
  internals.loadedNamespaces = namespaces;
  const apply = Reflect.apply;
  const applyHost = hostLoad.apply;
  const applyHostSync = hostLoad.applySync;
  const then = Promise.prototype.then;
  const mapGet = Map.prototype.get;
  const parse = JSON.parse;
  const String_ = String;
  const Promise_ = Promise;
  const Error_ = Error;
  const globalScopeImport = values.globalScopeImport;
  const inFlightLimit = values.inFlightLimit;
  const tooManyImports = values.tooManyImports;
  const namesLimit = values.namesLimit;
  const namesTooLong = values.namesTooLong;
  // The characters of the names of the loads in flight: measured before they cross, since the
  // host's copy of a program's string costs the host what the string (a rope) never cost the program.
  let namesInFlight = 0;
  // Loads asked of the host and not answered yet. Counted here, so a program that spins on
  // import() is refused inside the isolate past the bound, and never floods the host with calls.
  let inFlight = 0;
  const clock = internals.virtualClock;
  let lastLoad = 0;
  /**
   * In a durable run, a load's answer takes the next place in the sequence of observed
   * settlements when it arrives, and the clock moves to the time the host gives it: a resume
   * delivers the answer at the same place (docs/durable.md, "Dynamic imports").
   */
  const observe = (id: number) => {
    const next = clock.observe;
    if (clock.now === undefined || next === undefined) return;
    const time: unknown = apply(applyHostSync, hostLoad, [undefined, ['', id, next()]]);
    if (typeof time === 'number' && time > clock.now) clock.now = time;
  };
  const errors = {
    __proto__: null,
    Error,
    TypeError,
    RangeError,
    SyntaxError,
    ReferenceError,
    EvalError,
    URIError,
  } as unknown as Record<string, ErrorConstructorLike | undefined>;
  const load = function __sandboxImport(referrer: unknown, specifier: unknown) {
    return new Promise_((resolve, reject) => {
      if (scope.global) throw new Error_(globalScopeImport);
      if (inFlight >= inFlightLimit) throw new Error_(tooManyImports);
      const name = String_(specifier);
      const from = String_(referrer);
      const size = from.length + name.length;
      // Counted again after the conversions: a toString that imports would otherwise pass the
      // count at every level of its own re-entry.
      if (inFlight >= inFlightLimit) throw new Error_(tooManyImports);
      if (namesInFlight + size > namesLimit) throw new Error_(namesTooLong);
      const id = ++lastLoad;
      // The two names in an array copied across: a string of 1 KiB or more crossing on its own is
      // an external string of the host, whose bytes its collector does not weigh, and a program
      // importing long specifiers in a loop left gigabytes of them uncollected (inside/dispatch.ts).
      const request = apply(applyHost, hostLoad, [
        undefined,
        [[from, name], id],
        // No prototypes: isolated-vm looks up an option it does not find on the chain (inside/timers.ts).
        {
          __proto__: null,
          arguments: { __proto__: null, copy: true },
          result: { __proto__: null, promise: true },
        },
      ]);
      inFlight++;
      namesInFlight += size;
      apply(then, request, [
        (answer: unknown) => {
          inFlight--;
          namesInFlight -= size;
          let frame: [string, string, string, string?];
          try {
            observe(id);
            frame = parse(
              (typeof answer === 'number'
                ? apply(applyHostSync, hostLoad, [undefined, [answer]])
                : answer) as string,
            );
          } catch (error) {
            return reject(error);
          }
          if (frame[0] === 'loaded') return resolve(apply(mapGet, namespaces, [frame[1]]));
          // The failed module's top level ran in global scope and never handed it back.
          scope.global = false;
          const Failure = errors[frame[1]] || Error_;
          const failure = new Failure(frame[2]);
          // The host names what it observed (a module the map lacks, one that does not parse).
          reject(typeof frame[3] === 'string' ? mark(failure, frame[3]) : failure);
        },
        (failure: { message?: unknown } | undefined) => {
          inFlight--;
          namesInFlight -= size;
          // biome-ignore lint/complexity/useOptionalChain: a falsy rejection reads as itself, as it always has.
          reject(new Error_(String_(failure && failure.message)));
        },
      ]);
    });
  };
  Object.defineProperty(globalThis, '__sandboxImport', { value: load });
}
