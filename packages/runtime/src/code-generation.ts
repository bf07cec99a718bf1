/**
 * Code generation from strings and WebAssembly compiled from bytes are refused, as workerd refuses
 * them, with workerd's texts. The isolate stays the security boundary either way; refusing keeps
 * programs portable to Workers and keeps the engine's compilers out of reach of a hostile
 * program's inputs.
 *
 * The constructors are replaced once, when the bundle loads, so the replacements live in the
 * snapshot and a restored context has them (replacing them in every isolate cost each preparation
 * about 0.11 ms, against 0.05 ms for WebAssembly's part alone; bench/prepare-breakdown.ts).
 * WebAssembly's members are replaced in the second step of every isolate: WebAssembly does not
 * exist while the snapshot is made, and V8 adds it to each context it restores.
 *
 * Every route to the constructors is replaced: the globals, Function.prototype.constructor (which
 * every function inherits), and the constructor properties of the async, generator and async
 * generator function prototypes. WebAssembly.validate stays: it generates no code. Each
 * replacement reads as native code under its engine name (`String(Function)` is
 * `function Function() { [native code] }`), as the engine's own does in workerd: its source would
 * show a program that it runs here.
 */
import { nativeSource } from './global-scope.ts';
import { ObjectDefineProperty, ObjectEntries, ObjectGetPrototypeOf, PromiseReject } from './primordials.ts';

export const CODE_GENERATION_MESSAGE = 'Code generation from strings disallowed for this context';

const refusedConstructor = (name: string, prototype: object) => {
  // A function expression, so the replacement is a constructor: `x instanceof Function` still holds.
  const refuse = {
    [name]: function (this: unknown) {
      throw new EvalError(CODE_GENERATION_MESSAGE);
    },
  }[name] as (...args: unknown[]) => never;
  ObjectDefineProperty(refuse, 'prototype', {
    value: prototype,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  ObjectDefineProperty(refuse, 'length', { value: 1 });
  // Read as the engine's constructor reads, as in workerd: its source would name this replacement.
  nativeSource(refuse, name);
  return refuse;
};

function replaceConstructor(
  prototype: { constructor: unknown },
  name: string,
): (...args: unknown[]) => never {
  const refuse = refusedConstructor(name, prototype);
  ObjectDefineProperty(prototype, 'constructor', {
    value: refuse,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  return refuse;
}

/** Replaces eval and the function constructors; called once, as the bundle's last step. */
export function refuseCodeGeneration(): void {
  const global = globalThis as Record<string, unknown>;
  const evalReplacement = {
    eval(source: unknown): unknown {
      // Per the language, eval of anything but a string returns it untouched: no code is generated.
      if (typeof source !== 'string') return source;
      throw new EvalError(CODE_GENERATION_MESSAGE);
    },
  }.eval;
  nativeSource(evalReplacement, 'eval');
  ObjectDefineProperty(global, 'eval', {
    value: evalReplacement,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  const FunctionReplacement = replaceConstructor(Function.prototype, 'Function');
  ObjectDefineProperty(global, 'Function', {
    value: FunctionReplacement,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  replaceConstructor(ObjectGetPrototypeOf(async () => {}) as { constructor: unknown }, 'AsyncFunction');
  replaceConstructor(ObjectGetPrototypeOf(function* () {}) as { constructor: unknown }, 'GeneratorFunction');
  replaceConstructor(
    ObjectGetPrototypeOf(async function* () {}) as { constructor: unknown },
    'AsyncGeneratorFunction',
  );
}

/** Replaces WebAssembly's compiling members; called in every isolate's second step, before user code. */
export function refuseWebAssembly(): void {
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly;
  if (wasm === undefined) return;
  const CompileError = wasm.CompileError as new (message: string) => Error;
  const refusal = (operation: string) =>
    new CompileError(`WebAssembly.${operation}(): Wasm code generation disallowed by embedder`);
  const Module = wasm.Module as { prototype: { constructor: unknown } };
  const ModuleReplacement = {
    Module: function Module(_bytes: unknown) {
      throw refusal('Module');
    },
  }.Module;
  ObjectDefineProperty(ModuleReplacement, 'prototype', { value: Module.prototype, writable: false });
  ObjectDefineProperty(Module.prototype, 'constructor', {
    value: ModuleReplacement,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  const members: Record<string, unknown> = {
    Module: ModuleReplacement,
    compile: { compile: (_bytes: unknown) => PromiseReject(refusal('compile')) }.compile,
    instantiate: { instantiate: (_source: unknown) => PromiseReject(refusal('instantiate')) }.instantiate,
  };
  // The engine's shapes: one declared parameter each, and native source, as workerd shows
  // Module and compile (its instantiate is a wrapper of its own, whose source is not imitated).
  delete wasm.compileStreaming;
  delete wasm.instantiateStreaming;
  const entries = ObjectEntries(members);
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as [string, unknown];
    const name = entry[0];
    const value = entry[1];
    nativeSource(value, name);
    ObjectDefineProperty(wasm, name, { value, writable: true, enumerable: false, configurable: true });
  }
}
