/**
 * A module for the isolate (TRAPS_SOURCE) that replaces the methods of the common built-ins with
 * traps, as a hostile program could, and records each call the runtime makes into one: the
 * runtime promises (packages/runtime/src/primordials.ts) never to call a method a program can
 * replace. A trap records and then does what the method did, so the program runs on and every
 * call is seen, not only the first.
 *
 * Who called is read from the stack: the nearest frame that is not a built-in's. A frame in
 * `codemode-runtime.js` (the runtime bundle, or a piece it compiled) is the runtime's; any other
 * is the program's or the sandbox's. Values the program hands the runtime to iterate or convert
 * as a standard says (a sequence, an init record) are marked with `given`: the standard calls the
 * program's own methods on those, so calls with one as `this` are the program's business.
 *
 * Not trapped: accessors (an array's length, a typed array's byteLength, a RegExp's flags) and
 * the `constructor` read behind a species lookup; the rule is about methods.
 */

/** The built-ins whose methods are replaced, and the statics of the globals a runtime might read. */
export const TRAPS_SOURCE = `
const { apply, construct, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, ownKeys } = Reflect;
const ErrorCtor = Error;
const includes = String.prototype.includes;
const String_ = String;
const isArray = Array.isArray;
const weakSetHas = WeakSet.prototype.has;
const weakSetAdd = WeakSet.prototype.add;
const givenValues = new WeakSet();
const fired = { __proto__: null };
const JOB = '(a job: no frame)';
let armed = false;
let busy = false;

const protoOf = (value) => getPrototypeOf(value);
const TypedArray = protoOf(Uint8Array);
const PROTOTYPES = [
  ['Array.prototype', Array.prototype],
  ['String.prototype', String.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
  ['WeakMap.prototype', WeakMap.prototype],
  ['WeakSet.prototype', WeakSet.prototype],
  ['Promise.prototype', Promise.prototype],
  ['RegExp.prototype', RegExp.prototype],
  ['Object.prototype', Object.prototype],
  ['Function.prototype', Function.prototype],
  ['TypedArray.prototype', TypedArray.prototype],
  ['ArrayBuffer.prototype', ArrayBuffer.prototype],
  ['DataView.prototype', DataView.prototype],
  ['Number.prototype', Number.prototype],
  ['Boolean.prototype', Boolean.prototype],
  ['BigInt.prototype', BigInt.prototype],
  ['Symbol.prototype', Symbol.prototype],
  ['Date.prototype', Date.prototype],
  ['Error.prototype', Error.prototype],
  ['%IteratorPrototype%', protoOf(protoOf([][Symbol.iterator]()))],
  ['%ArrayIteratorPrototype%', protoOf([][Symbol.iterator]())],
  ['%StringIteratorPrototype%', protoOf(''[Symbol.iterator]())],
  ['%MapIteratorPrototype%', protoOf(new Map()[Symbol.iterator]())],
  ['%SetIteratorPrototype%', protoOf(new Set()[Symbol.iterator]())],
  ['%RegExpStringIteratorPrototype%', protoOf(/./[Symbol.matchAll](''))],
  ['%GeneratorPrototype%', protoOf(protoOf((function* () {})()))],
  ['%AsyncIteratorPrototype%', protoOf(protoOf(protoOf((async function* () {})())))],
];
const STATICS = [
  ['Object', Object], ['Array', Array], ['String', String], ['Number', Number], ['Math', Math],
  ['JSON', JSON], ['Reflect', Reflect], ['Promise', Promise], ['Symbol', Symbol], ['Date', Date],
  ['ArrayBuffer', ArrayBuffer],
];

const captureStackTrace = ErrorCtor.captureStackTrace;
// Enough for the traps, the built-ins between them, and the caller; a longer trace costs every call.
const STACK_LIMIT = 10;
const sitesOf = (_error, sites) => sites;

/**
 * Who called the trap: the function name of the stack's nearest frame below it that is neither a
 * built-in's nor another trap's, when that frame is the runtime's (the bundle, or a piece it
 * compiled); '' when the trap was called from a job, with no frame at all but the async frames of
 * what awaits; undefined otherwise.
 * Read from V8's call sites, which cost far less than a formatted stack.
 */
function runtimeCaller() {
  const saved = ErrorCtor.prepareStackTrace;
  ErrorCtor.prepareStackTrace = sitesOf;
  const holder = {};
  captureStackTrace(holder, record);
  const sites = holder.stack;
  ErrorCtor.prepareStackTrace = saved;
  let index = 0;
  while (index < sites.length && sites[index].getFunctionName() !== '__trap__') index++;
  for (index++; index < sites.length; index++) {
    const site = sites[index];
    if (site.getFunctionName() === '__trap__' || site.isNative()) continue;
    // An async frame is where a suspended async function awaits, not a caller: a job's call shows
    // them below it (Node 26's V8 does, for the job that settles an await on a host answer).
    if (site.isAsync()) continue;
    const file = site.getFileName();
    if (file === undefined || file === null) {
      if (!site.isEval()) continue;
    }
    const name = site.getFunctionName() ?? '(anonymous)';
    if (file === 'codemode-runtime.js') return name;
    if (site.isEval() && apply(includes, String_(site.getEvalOrigin()), ['codemode-runtime.js'])) return name + ' (in a piece)';
    return undefined;
  }
  return sites.length < STACK_LIMIT ? '' : '(deeper than the stack kept)';
}

function record(trap, self) {
  if (!armed || busy) return;
  if ((typeof self === 'object' && self !== null) || typeof self === 'function') {
    if (apply(weakSetHas, givenValues, [self])) return;
  }
  busy = true;
  const caller = runtimeCaller();
  if (caller !== undefined) {
    const key = trap + ' <- ' + (caller === '' ? JOB : caller);
    fired[key] = (fired[key] ?? 0) + 1;
  }
  busy = false;
}

function trapMethod(label, target, key) {
  const descriptor = getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined || typeof descriptor.value !== 'function' || key === 'constructor') return;
  if (!descriptor.configurable && !descriptor.writable) return;
  const original = descriptor.value;
  const trap = label + '.' + (typeof key === 'symbol' ? '[' + key.description + ']' : key);
  const replacement = {
    __trap__(...args) {
      record(trap, this);
      const result = new.target === undefined ? apply(original, this, args) : construct(original, args, new.target);
      // An iterator made from a value the program handed over is the program's too.
      if (((typeof this === 'object' && this !== null) || typeof this === 'function') && apply(weakSetHas, givenValues, [this])) {
        if ((typeof result === 'object' && result !== null) || typeof result === 'function') apply(weakSetAdd, givenValues, [result]);
      }
      return result;
    },
  }.__trap__;
  defineProperty(target, key, { ...descriptor, value: replacement });
}

/** Marks a value the program hands the runtime, with the arrays and plain objects inside it. */
export function given(value, depth = 0) {
  if (depth > 4 || ((typeof value !== 'object' || value === null) && typeof value !== 'function')) return value;
  apply(weakSetAdd, givenValues, [value]);
  if (isArray(value)) for (let index = 0; index < value.length; index++) given(value[index], depth + 1);
  else if (getPrototypeOf(value) === Object.prototype) {
    const keys = ownKeys(value);
    for (let index = 0; index < keys.length; index++) given(value[keys[index]], depth + 1);
  }
  return value;
}

/** Replaces every method of PROTOTYPES and every function of STATICS with a trap, and arms them. */
export function install() {
  ErrorCtor.stackTraceLimit = STACK_LIMIT;
  for (let index = 0; index < PROTOTYPES.length; index++) {
    const [label, target] = PROTOTYPES[index];
    const keys = ownKeys(target);
    for (let position = 0; position < keys.length; position++) trapMethod(label, target, keys[position]);
  }
  for (let index = 0; index < STATICS.length; index++) {
    const [label, target] = STATICS[index];
    const keys = ownKeys(target);
    for (let position = 0; position < keys.length; position++) trapMethod(label, target, keys[position]);
  }
  armed = true;
}

/** Disarms the traps and answers what fired from runtime code: { 'trap <- function': count }. */
export function report() {
  armed = false;
  const answer = {};
  const keys = ownKeys(fired);
  for (let index = 0; index < keys.length; index++) answer[keys[index]] = fired[keys[index]];
  return answer;
}
`;

/** What a run under the traps answers: the trap calls from runtime code, by `trap <- caller`. */
export type Fired = Record<string, number>;
