/**
 * WebAssembly.Memory and WebAssembly.Table, bounded. No WebAssembly can be compiled here
 * (code-generation.ts), yet both constructors remain, and each allocates where the memory limit
 * does not look: a Memory reserves and commits pages outside isolated-vm's allocator (16384 pages
 * committed 1 GiB under a 64 MB limit), and growing a Table to millions of entries is one
 * allocation so large that V8 ends the whole process instead of the run (measured: a fatal
 * out-of-memory at 9 million entries).
 *
 * So a Memory may have at most WASM_MEMORY_PAGE_LIMIT pages: a larger `initial` is refused, and a
 * `maximum` (given, or absent) becomes at most the limit, which V8 then enforces on every grow. The
 * maximum it ends up with is charged against the reserved-memory budget (reserved-memory.ts). A
 * Table may have at most WASM_TABLE_ELEMENT_LIMIT elements in the same way; its elements live on
 * the metered heap, so it charges nothing. grow() past either limit throws a RangeError naming it.
 *
 * Each descriptor is read once, into a copy the original constructor reads, so a getter cannot
 * answer the check one value and the engine another.
 */
import { nativeSource, standIn } from './global-scope.ts';
import {
  ArrayPrototypePush,
  MathMin,
  ObjectDefineProperty,
  RangeErrorCtor,
  ReflectApply,
  ReflectConstruct,
  ReflectGetOwnPropertyDescriptor,
  TypeErrorCtor,
  WeakMapCtor,
} from './primordials.ts';
import { RESERVATION_UNIT, withReservation } from './reserved-memory.ts';

/** The most pages a WebAssembly.Memory may have: 16 MiB. */
export const WASM_MEMORY_PAGE_LIMIT = 256;

/** The most elements a WebAssembly.Table may have. */
export const WASM_TABLE_ELEMENT_LIMIT = 65536;

export function wasmMemoryLimitMessage(pages: number): string {
  return `A WebAssembly.Memory may have at most ${WASM_MEMORY_PAGE_LIMIT} pages in this runtime; ${pages} were asked for.`;
}

export function wasmTableLimitMessage(elements: number): string {
  return `A WebAssembly.Table may have at most ${WASM_TABLE_ELEMENT_LIMIT} elements in this runtime; ${elements} were asked for.`;
}

const BigIntCtor = BigInt;
const NumberCtor = Number;
const asIntN = BigInt.asIntN;
const WeakMapGet = WeakMapCtor.prototype.get;
const WeakMapSet = WeakMapCtor.prototype.set;

type Descriptor = Record<string, unknown>;

/**
 * A number argument converted once, as the engine would: ToBigInt for a 64-bit memory or table,
 * ToNumber otherwise. undefined stays undefined.
 */
function convert(value: unknown, wide: boolean): number | bigint | undefined {
  if (value === undefined) return undefined;
  return wide ? asIntN(64, value as bigint) : +(value as number);
}

/** The descriptor's string members, copied as strings in this order. */
const COPIED_MEMBERS = ['address', 'index', 'element'];

/** `first`, then each of `rest`: an argument list made without iterating `rest`. */
function argumentsOf(first: unknown, rest: readonly unknown[]): unknown[] {
  const list = [first];
  for (let index = 0; index < rest.length; index++) ArrayPrototypePush(list, rest[index]);
  return list;
}

/** The descriptor's members as primitives, read once, and the limit applied to its maximum. */
function readDescriptor(
  descriptor: unknown,
  limit: number,
  refuse: (count: number) => RangeError,
): { copy: Descriptor; initial: number; maximum: number } | undefined {
  if ((typeof descriptor !== 'object' || descriptor === null) && typeof descriptor !== 'function')
    return undefined;
  const source = descriptor as Descriptor;
  const copy: Descriptor = {};
  for (let index = 0; index < COPIED_MEMBERS.length; index++) {
    const key = COPIED_MEMBERS[index] as string;
    const value = source[key];
    if (value !== undefined) copy[key] = `${value as string}`;
  }
  const wide = copy.address === 'i64' || copy.index === 'i64';
  const initial = convert(source.initial, wide);
  const maximum = convert(source.maximum, wide);
  const shared = source.shared;
  if (shared !== undefined) copy.shared = !!shared;
  if (initial !== undefined) copy.initial = initial;
  if (maximum !== undefined) copy.maximum = maximum;
  const initialCount = NumberCtor(initial);
  // What the engine would refuse (a missing or negative initial, NaN) is left for it to refuse.
  if (!(initialCount >= 0)) return undefined;
  if (initialCount > limit) throw refuse(initialCount);
  // A shared memory without a maximum is the engine's TypeError; every other one gets a maximum.
  if (maximum === undefined && copy.shared === true) return undefined;
  const maximumCount = maximum === undefined ? limit : NumberCtor(maximum);
  if (!(maximumCount >= initialCount)) return undefined;
  const bounded = MathMin(maximumCount, limit);
  copy.maximum = wide ? BigIntCtor(bounded) : bounded;
  return { copy, initial: initialCount, maximum: bounded };
}

function replaceConstructor(
  namespace: Record<string, unknown>,
  name: string,
  make: (Original: new (...args: unknown[]) => object) => (...args: unknown[]) => object,
): void {
  const Original = namespace[name] as (new (...args: unknown[]) => object) & { prototype: object };
  if (Original === undefined) return;
  const Guarded = make(Original);
  ObjectDefineProperty(
    Guarded,
    'length',
    ReflectGetOwnPropertyDescriptor(Original, 'length') as PropertyDescriptor,
  );
  ObjectDefineProperty(namespace, name, {
    value: Guarded,
    writable: true,
    enumerable: false,
    configurable: true,
  });
  standIn(Guarded, Original, name);
}

/** Replaces `prototype.grow` with one that refuses growth past `limit` with `refuse`'s text. */
function guardGrow(
  prototype: object,
  wideOf: WeakMap<object, boolean>,
  current: (self: object) => number,
  limit: number,
  refuse: (count: number) => RangeError,
): void {
  const grow = (prototype as { grow: (...args: unknown[]) => unknown }).grow;
  const guarded = {
    grow(this: object, delta: unknown, ...rest: unknown[]): unknown {
      const wide = ReflectApply(WeakMapGet, wideOf, [this]) as boolean | undefined;
      // Not one of ours (a wrong receiver): the original throws what it throws.
      if (wide === undefined) return ReflectApply(grow, this, argumentsOf(delta, rest));
      const converted = convert(delta, wide);
      const after = current(this) + NumberCtor(converted);
      if (after > limit) throw refuse(after);
      return ReflectApply(grow, this, argumentsOf(converted, rest));
    },
  }.grow;
  const descriptor = ReflectGetOwnPropertyDescriptor(prototype, 'grow') as PropertyDescriptor;
  ObjectDefineProperty(prototype, 'grow', { ...descriptor, value: guarded });
  nativeSource(guarded, 'grow');
}

/** Bounds WebAssembly.Memory and WebAssembly.Table; called once per isolate, before user code. */
export function limitWebAssemblyMemory(): void {
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly;
  if (wasm === undefined) return;
  const refuseMemory = (pages: number) => new RangeErrorCtor(wasmMemoryLimitMessage(pages));
  const refuseTable = (elements: number) => new RangeErrorCtor(wasmTableLimitMessage(elements));
  const memories = new WeakMapCtor<object, boolean>();
  const tables = new WeakMapCtor<object, boolean>();
  const Memory = wasm.Memory as { prototype: object } | undefined;
  const Table = wasm.Table as { prototype: object } | undefined;

  replaceConstructor(wasm, 'Memory', (Original) => {
    return {
      Memory: function (this: unknown, descriptor: unknown) {
        if (new.target === undefined)
          throw new TypeErrorCtor("WebAssembly.Memory must be invoked with 'new'");
        const read = readDescriptor(descriptor, WASM_MEMORY_PAGE_LIMIT, refuseMemory);
        if (read === undefined) {
          // The engine throws for every descriptor readDescriptor leaves to it; should it not,
          // nothing unbounded is ever handed back.
          ReflectConstruct(Original, [descriptor], new.target);
          throw refuseMemory(WASM_MEMORY_PAGE_LIMIT + 1);
        }
        const memory = withReservation(read.maximum * RESERVATION_UNIT, () =>
          ReflectConstruct(Original, [read.copy], new.target),
        );
        ReflectApply(WeakMapSet, memories, [
          memory,
          read.copy.address === 'i64' || read.copy.index === 'i64',
        ]);
        return memory;
      },
    }.Memory as unknown as (...args: unknown[]) => object;
  });

  replaceConstructor(wasm, 'Table', (Original) => {
    return {
      Table: function (this: unknown, descriptor: unknown, ...value: unknown[]) {
        if (new.target === undefined) throw new TypeErrorCtor("WebAssembly.Table must be invoked with 'new'");
        const read = readDescriptor(descriptor, WASM_TABLE_ELEMENT_LIMIT, refuseTable);
        if (read === undefined) {
          ReflectConstruct(Original, argumentsOf(descriptor, value), new.target);
          throw refuseTable(WASM_TABLE_ELEMENT_LIMIT + 1);
        }
        const table = ReflectConstruct(Original, argumentsOf(read.copy, value), new.target);
        ReflectApply(WeakMapSet, tables, [table, read.copy.address === 'i64' || read.copy.index === 'i64']);
        return table;
      },
    }.Table as unknown as (...args: unknown[]) => object;
  });

  if (Memory !== undefined) {
    const bufferOf = ReflectGetOwnPropertyDescriptor(Memory.prototype, 'buffer')?.get as (
      this: object,
    ) => ArrayBuffer;
    const byteLength = ReflectGetOwnPropertyDescriptor(
      (globalThis as unknown as { ArrayBuffer: { prototype: object } }).ArrayBuffer.prototype,
      'byteLength',
    )?.get as (this: object) => number;
    const sharedByteLength = (globalThis as { SharedArrayBuffer?: { prototype: object } }).SharedArrayBuffer
      ? (ReflectGetOwnPropertyDescriptor(
          (globalThis as unknown as { SharedArrayBuffer: { prototype: object } }).SharedArrayBuffer.prototype,
          'byteLength',
        )?.get as (this: object) => number)
      : undefined;
    const pagesOf = (memory: object) => {
      const buffer = ReflectApply(bufferOf, memory, []);
      let bytes: number;
      try {
        bytes = ReflectApply(byteLength, buffer, []);
      } catch {
        bytes = sharedByteLength === undefined ? 0 : ReflectApply(sharedByteLength, buffer, []);
      }
      return bytes / RESERVATION_UNIT;
    };
    guardGrow(Memory.prototype, memories, pagesOf, WASM_MEMORY_PAGE_LIMIT, refuseMemory);
  }
  if (Table !== undefined) {
    const lengthOf = ReflectGetOwnPropertyDescriptor(Table.prototype, 'length')?.get as (
      this: object,
    ) => number;
    guardGrow(
      Table.prototype,
      tables,
      (table) => ReflectApply(lengthOf, table, []),
      WASM_TABLE_ELEMENT_LIMIT,
      refuseTable,
    );
  }
}
