/**
 * The snapshot's warm-up (inside/warmup.ts) runs the preparation against stand-ins, WebAssembly
 * and SharedArrayBuffer among them, in the throwaway context V8 warms a snapshot up in. Only the
 * compiled code may come out of it: a prepared isolate has the engine's objects, guarded.
 */
import { expect, test } from 'vitest';
import { CODE_GENERATION_MESSAGE } from '../../../runtime/src/code-generation.ts';
import { WASM_MEMORY_PAGE_LIMIT, wasmMemoryLimitMessage } from '../../../runtime/src/webassembly-memory.ts';
import { prepareIsolate } from '../../src/sandbox/setup/prepared-isolate.ts';

test("a prepared isolate's WebAssembly and SharedArrayBuffer are the engine's, guarded, not the warm-up's stand-ins", () => {
  const prepared = prepareIsolate({ memoryLimit: 64 });
  try {
    const seen = prepared.handle.context.evalSync(`JSON.stringify((() => {
      const t = (f) => { try { return f(); } catch (error) { return error.constructor.name + ': ' + error.message; } };
      const memory = new WebAssembly.Memory({ initial: 1 });
      return {
        members: Object.getOwnPropertyNames(WebAssembly).filter((name) => ['Global', 'validate', 'compileStreaming'].includes(name)).sort(),
        memoryBytes: memory.buffer.byteLength,
        memoryTag: Object.prototype.toString.call(memory),
        grownPast: t(() => memory.grow(${WASM_MEMORY_PAGE_LIMIT})),
        module: t(() => new WebAssembly.Module(new Uint8Array(8))),
        compileErrorIsEngines: t(() => new WebAssembly.Module(new Uint8Array(8))).startsWith('CompileError') && WebAssembly.CompileError.toString().includes('[native code]'),
        shared: new SharedArrayBuffer(8).byteLength,
        sharedTag: Object.prototype.toString.call(new SharedArrayBuffer(8)),
        growable: new SharedArrayBuffer(8, { maxByteLength: 16 }).growable,
        evalRefused: t(() => eval('1')),
      };
    })())`);
    expect(JSON.parse(seen as string)).toStrictEqual({
      members: ['Global', 'validate'],
      memoryBytes: 65536,
      memoryTag: '[object WebAssembly.Memory]',
      grownPast: `RangeError: ${wasmMemoryLimitMessage(WASM_MEMORY_PAGE_LIMIT + 1)}`,
      module: 'CompileError: WebAssembly.Module(): Wasm code generation disallowed by embedder',
      compileErrorIsEngines: true,
      shared: 8,
      sharedTag: '[object SharedArrayBuffer]',
      growable: true,
      evalRefused: `EvalError: ${CODE_GENERATION_MESSAGE}`,
    });
  } finally {
    prepared.handle.isolate.dispose();
  }
});
