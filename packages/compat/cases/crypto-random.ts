/** crypto.getRandomValues and crypto.randomUUID: shapes and errors, never the random values themselves. */
import { defineArea } from '../src/case.ts';

export default defineArea('crypto-random', [
  {
    name: 'uuid-format',
    quick: true,
    code: `async () => {
  const id = crypto.randomUUID();
  return { length: id.length, matches: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), masked: id };
}`,
  },
  {
    name: 'uuids-are-unique',
    code: `async () => new Set(Array.from({ length: 200 }, () => crypto.randomUUID())).size`,
  },
  {
    name: 'fills-and-returns-same-array',
    quick: true,
    code: `async () => {
  const array = new Uint8Array(32);
  const returned = crypto.getRandomValues(array);
  return { same: returned === array, length: array.length, nonZero: array.some((b) => b !== 0) };
}`,
  },
  {
    name: 'quota-exceeded',
    code: `async () => [new Uint8Array(65537), new Int32Array(16385)].map((array) => {
  try { crypto.getRandomValues(array); return 'filled'; } catch (e) { return { name: e.name, code: e.code, message: e.message }; }
})`,
  },
  {
    name: 'exactly-64k',
    code: `async () => crypto.getRandomValues(new Uint8Array(65536)).length`,
  },
  {
    name: 'float-arrays-refused',
    code: `async () => [new Float32Array(2), new Float64Array(2), new DataView(new ArrayBuffer(4))].map((view) => {
  try { crypto.getRandomValues(view); return 'filled'; } catch (e) { return { name: e.name, code: e.code, message: e.message }; }
})`,
  },
  {
    name: 'non-views-refused',
    code: `async () => [new ArrayBuffer(4), [1, 2], undefined, 'abc'].map((value) => {
  try { crypto.getRandomValues(value); return 'filled'; } catch (e) { return e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'integer-kinds-accepted',
    code: `async () => [Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array].map((Kind) => {
  try { return Kind.name + ':' + crypto.getRandomValues(new Kind(4)).length; } catch (e) { return Kind.name + ': ' + e.name; }
})`,
  },
  {
    name: 'detached-method',
    code: `async () => {
  const get = crypto.getRandomValues;
  try { get(new Uint8Array(1)); return 'worked'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'random-token-hex',
    code: `async () => {
  const token = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  return { length: token.length, hex: /^[0-9a-f]+$/.test(token) };
}`,
  },
  {
    name: 'crypto-object-shape',
    code: `async () => ({
  tag: Object.prototype.toString.call(crypto), subtle: Object.prototype.toString.call(crypto.subtle),
  isCrypto: typeof Crypto === 'function' && crypto instanceof Crypto, uuidLength: crypto.randomUUID.length, grvLength: crypto.getRandomValues.length,
  own: Object.getOwnPropertyNames(crypto),
})`,
  },
  {
    name: 'math-random-range',
    code: `async () => {
  const values = Array.from({ length: 1000 }, () => Math.random());
  return { inRange: values.every((v) => v >= 0 && v < 1), distinct: new Set(values).size > 990 };
}`,
  },
  {
    name: 'uuid-per-record-from-tool',
    tools: ['github'],
    code: `async () => {
  const issues = await github.listIssues({ repo: 'acme/app', state: 'all' });
  const tagged = issues.map((issue) => ({ id: crypto.randomUUID(), number: issue.number }));
  return { count: tagged.length, uniqueIds: new Set(tagged.map((t) => t.id)).size, sample: tagged[0] };
}`,
  },
  {
    name: 'zero-length',
    code: `async () => ({ empty: crypto.getRandomValues(new Uint8Array(0)).length, view: crypto.getRandomValues(new Uint8Array(new ArrayBuffer(8), 2, 3)).length })`,
  },
  {
    name: 'distribution-sanity',
    code: `async () => {
  const bytes = crypto.getRandomValues(new Uint8Array(4096));
  const counts = new Array(4).fill(0);
  for (const b of bytes) counts[b >> 6]++;
  return counts.every((c) => c > 800 && c < 1250);
}`,
  },
  {
    name: 'shuffle-keeps-members',
    code: `async () => {
  const deck = Array.from({ length: 52 }, (_, i) => i);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = crypto.getRandomValues(new Uint32Array(1))[0] % (i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return { length: deck.length, sum: deck.reduce((a, b) => a + b, 0), unique: new Set(deck).size };
}`,
  },
]);
