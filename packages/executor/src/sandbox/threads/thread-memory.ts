/**
 * What a deadline worker's thread reports after each job (deadline-worker.ts ends a thread past its
 * retained limit): the bytes its isolate holds outside the JavaScript heap. In the threads that
 * erase types or read Code Mode code, that is amaro's WebAssembly memory above all, which grows with
 * the code it parses and never shrinks, and which the thread's heap bound (resourceLimits) does not
 * see.
 *
 * Node 24's V8 counts WebAssembly memory in the heap's `external_memory`; Node 26's does not (a
 * memory grown by 64 MiB left it unchanged), so there the thread's hostile megabyte went unseen and
 * the thread kept tens of MB for good. So where the engine leaves them out, the memories the
 * thread's WebAssembly instances export are added: every instance made after this module loaded,
 * which is before the thread loads amaro (it does so at its first job). It runs only in those
 * threads: the wrapper it installs is the thread's own global.
 */
import { getHeapStatistics } from 'node:v8';

/** The few parts of WebAssembly used here: the host packages' types do not declare it. */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface Wasm {
  Instance: new (...args: unknown[]) => { readonly exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const memories: WeakRef<WasmMemory>[] = [];

wasm.Instance = new Proxy(wasm.Instance, {
  construct(target, args, newTarget) {
    const instance = Reflect.construct(target, args, newTarget) as InstanceType<Wasm['Instance']>;
    for (const value of Object.values(instance.exports)) {
      if (value instanceof wasm.Memory) memories.push(new WeakRef(value));
    }
    return instance;
  },
});

/** The bytes of the WebAssembly memories the thread's instances export. */
function webAssemblyBytes(): number {
  let bytes = 0;
  for (const memory of memories) bytes += memory.deref()?.buffer.byteLength ?? 0;
  return bytes;
}

/**
 * Whether this engine counts WebAssembly memory as external: a memory of 16 pages (1 MiB) made
 * here either moves external_memory by about that much or not at all.
 */
function externalCountsWebAssembly(): boolean {
  const before = getHeapStatistics().external_memory;
  const probe = new wasm.Memory({ initial: 16 });
  const counted = getHeapStatistics().external_memory - before >= probe.buffer.byteLength / 2;
  return counted;
}
const counted = externalCountsWebAssembly();

export function threadRetainedBytes(): number {
  const external = getHeapStatistics().external_memory;
  return counted ? external : external + webAssemblyBytes();
}
