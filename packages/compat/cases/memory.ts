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
  {
    name: 'length-tracking-view',
    code: `async () => {
  const buffer = new ArrayBuffer(4, { maxByteLength: 64 });
  const tracking = new Uint8Array(buffer);
  const fixed = new Uint8Array(buffer, 0, 2);
  buffer.resize(32);
  const grown = [tracking.length, fixed.length];
  buffer.resize(1);
  return { grown, shrunk: [tracking.length, (() => { try { return fixed.length; } catch (e) { return e.name; } })()] };
}`,
  },
  {
    name: 'transfer-keeps-resizability',
    code: `async () => {
  const buffer = new ArrayBuffer(4, { maxByteLength: 64 });
  const moved = buffer.transfer(16);
  const fixed = moved.transferToFixedLength();
  return [buffer.detached, moved.detached, fixed.resizable, fixed.byteLength, new ArrayBuffer(2, { maxByteLength: 8 }).transfer().resizable, new ArrayBuffer(2, { maxByteLength: 8 }).transfer().maxByteLength];
}`,
  },
  {
    name: 'slice-of-resizable-is-fixed',
    code: `async () => {
  class Sub extends ArrayBuffer {}
  const buffer = new Sub(8, { maxByteLength: 16 });
  const copy = buffer.slice(2);
  return [copy instanceof Sub, copy.resizable, copy.byteLength, copy.maxByteLength];
}`,
  },
  {
    name: 'reflect-construct-new-target',
    code: `async () => {
  class Sub extends ArrayBuffer {}
  const made = Reflect.construct(ArrayBuffer, [4, { maxByteLength: 8 }], Sub);
  function Plain() {}
  Plain.prototype = Object.create(ArrayBuffer.prototype);
  const plain = Reflect.construct(ArrayBuffer, [2], Plain);
  return [made instanceof Sub, made.maxByteLength, Object.getPrototypeOf(plain) === Plain.prototype, plain.byteLength];
}`,
  },
  {
    name: 'constructor-errors',
    quick: true,
    code: `async () => { ${T}
  return [
    t(() => ArrayBuffer(1)),
    t(() => new ArrayBuffer(-1)),
    t(() => new ArrayBuffer(4, { maxByteLength: 2 })),
    t(() => new ArrayBuffer(1, { maxByteLength: -1 })),
    t(() => new ArrayBuffer(Symbol())),
    t(() => new ArrayBuffer({ valueOf: () => 3 }, { maxByteLength: { valueOf: () => 5 } }).maxByteLength),
  ];
}`,
  },
  {
    name: 'shapes-and-sources',
    code: `async () => ({
  arrayBuffer: [String(ArrayBuffer), Object.getOwnPropertyNames(ArrayBuffer), ArrayBuffer.length],
  shared: typeof SharedArrayBuffer === 'function' ? [String(SharedArrayBuffer), Object.getOwnPropertyNames(SharedArrayBuffer)] : null,
  memory: [String(WebAssembly.Memory), Object.getOwnPropertyNames(WebAssembly.Memory), WebAssembly.Memory.length],
  table: [String(WebAssembly.Table), WebAssembly.Table.length, Object.getOwnPropertyNames(WebAssembly.Table.prototype).sort()],
  descriptor: Object.getOwnPropertyDescriptor(ArrayBuffer, 'prototype'),
})`,
  },
  {
    name: 'wasm-table-within-limit',
    code: `async () => { ${T}
  const table = new WebAssembly.Table({ initial: 1, maximum: 8, element: 'externref' }, 'a');
  table.grow(2, 'b');
  table.set(0, 'z');
  return [table.length, table.get(0), table.get(2), t(() => table.grow(6)), new WebAssembly.Table({ initial: 1, element: 'anyfunc' }).get(0)];
}`,
  },
  {
    name: 'crypto-algorithm-name-at-bound',
    code: `async () => {
  const outcomes = [];
  for (const name of ['x'.repeat(256), 'SHA-256'.padEnd(256, ' ')]) {
    try { await crypto.subtle.digest({ name }, new Uint8Array(1)); outcomes.push('digested'); }
    catch (e) { outcomes.push([e.name, e.message]); }
  }
  return outcomes;
}`,
  },
]);
