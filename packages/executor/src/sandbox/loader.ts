/**
 * The isolate's half of the import() fallback: __sandboxImport(referrer, specifier), which the
 * rewritten expressions call. It asks the host loader (the isolate's loader slot) to load the
 * module, then hands back the namespace the loader root stored inside the isolate, so the program
 * gets the real namespace object, live bindings and all.
 *
 * A module's top level may not wait on the host (adr/0002), so import() in global scope, at the top
 * level of a module while modules load, is refused with a message that says what to do instead.
 */
export const GLOBAL_SCOPE_IMPORT_MESSAGE =
  'import() cannot run at the top level of a module while modules load: this engine cannot wait on the host there. Use a static import, or call import() inside the program.';

export const LOADER_SOURCE = `((hostLoad) => {
  const internals = globalThis.__runtimeInternals;
  const scope = internals.scope;
  const namespaces = new Map();
  internals.loadedNamespaces = namespaces;
  const apply = Reflect.apply;
  const applyHost = hostLoad.apply;
  const then = Promise.prototype.then;
  const mapGet = Map.prototype.get;
  const parse = JSON.parse;
  const toString = String;
  const Promise_ = Promise;
  const Error_ = Error;
  const errors = { __proto__: null, Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
  const load = function __sandboxImport(referrer, specifier) {
    return new Promise_((resolve, reject) => {
      if (scope.global) throw new Error_(${JSON.stringify(GLOBAL_SCOPE_IMPORT_MESSAGE)});
      const name = toString(specifier);
      const request = apply(applyHost, hostLoad, [undefined, [toString(referrer), name], { result: { promise: true } }]);
      apply(then, request, [
        (text) => {
          const frame = parse(text);
          if (frame[0] === 'loaded') return resolve(apply(mapGet, namespaces, [frame[1]]));
          // The failed module's top level ran in global scope and never handed it back.
          scope.global = false;
          const Failure = errors[frame[1]] || Error_;
          reject(new Failure(frame[2]));
        },
        (failure) => reject(new Error_(toString(failure && failure.message))),
      ]);
    });
  };
  Object.defineProperty(globalThis, '__sandboxImport', { value: load });
})`;
