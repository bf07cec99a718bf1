/**
 * Memory the engine's limit does not meter (docs/runtime-deviations.md, "Memory the engine's limit
 * does not meter"): resizable and growable buffers and WebAssembly memories within the bounds
 * behave as in workerd; past them this runtime refuses where workerd admits. Nothing here commits
 * memory: a maximum is address space until it is grown into.
 */
import { defineArea } from '../src/case.ts';

const T = `const t = (f) => { try { return f(); } catch (e) { return e.name + ': ' + e.message; } };`;

export default defineArea('memory', [
  {
    name: 'resizable-within-budget',
    quick: true,
    code: `async () => { ${T}
  const buffer = new ArrayBuffer(8, { maxByteLength: 2 ** 20 });
  const view = new Uint8Array(buffer);
  buffer.resize(64);
  class Sub extends ArrayBuffer {}
  const sub = new Sub(1, { maxByteLength: 16 });
  return {
    buffer: [buffer.resizable, buffer.maxByteLength, buffer.byteLength, view.length],
    sub: [sub instanceof Sub, sub instanceof ArrayBuffer, sub.maxByteLength, sub.slice(0) instanceof Sub],
    shape: [ArrayBuffer.name, ArrayBuffer.length, ArrayBuffer.prototype.constructor === ArrayBuffer, ArrayBuffer[Symbol.species] === ArrayBuffer],
    fixed: [new ArrayBuffer(4).resizable, new ArrayBuffer(4, {}).maxByteLength],
    past: t(() => buffer.resize(2 ** 21)),
  };
}`,
  },
  {
    name: 'resizable-past-budget',
    quick: true,
    code: `async () => { ${T}
  return [
    t(() => new ArrayBuffer(0, { maxByteLength: 2 ** 32 }).maxByteLength),
    t(() => new (new Uint8Array(0).buffer.constructor)(0, { maxByteLength: 2 ** 32 }).maxByteLength),
    t(() => new (class extends ArrayBuffer {})(0, { maxByteLength: 2 ** 32 }).maxByteLength),
  ];
}`,
  },
  {
    name: 'growable-shared-past-budget',
    code: `async () => { ${T}
  if (typeof SharedArrayBuffer !== 'function') return 'no SharedArrayBuffer';
  return [t(() => new SharedArrayBuffer(1, { maxByteLength: 8 }).growable), t(() => new SharedArrayBuffer(0, { maxByteLength: 2 ** 32 }).maxByteLength)];
}`,
  },
  {
    name: 'wasm-memory-within-limit',
    code: `async () => { ${T}
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
  memory.grow(1);
  return [memory.buffer.byteLength, t(() => memory.grow(3)), memory instanceof WebAssembly.Memory];
}`,
  },
  {
    name: 'wasm-memory-past-limit',
    code: `async () => { ${T}
  return [
    t(() => new WebAssembly.Memory({ initial: 1024 }).buffer.byteLength),
    t(() => { const m = new WebAssembly.Memory({ initial: 1 }); m.grow(511); return m.buffer.byteLength; }),
  ];
}`,
  },
  {
    name: 'wasm-table-past-limit',
    code: `async () => { ${T}
  return [
    t(() => new WebAssembly.Table({ initial: 2, element: 'anyfunc' }).length),
    t(() => { const x = new WebAssembly.Table({ initial: 1, element: 'anyfunc' }); return x.grow(100000); }),
  ];
}`,
  },
  {
    name: 'crypto-long-algorithm-name',
    code: `async () => {
  try { await crypto.subtle.digest({ name: 'S'.repeat(1000) }, new Uint8Array(1)); return 'digested'; }
  catch (e) { return [e.name, e.message]; }
}`,
  },
]);
