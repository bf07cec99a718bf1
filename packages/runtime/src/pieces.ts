/**
 * Runtime pieces: the parts of the runtime a trivial program never touches, kept out of the startup
 * snapshot. The package's build (scripts/build.ts) makes each into a script the host keeps
 * (RUNTIME_PIECES); the first use of a piece in an isolate asks the host, synchronously, for that
 * script's source and compiles it here, with the engine's own eval captured when the bundle loaded
 * (before refuseCodeGeneration replaced the global one; nothing else can reach it, and it only
 * ever compiles the host's pieces). The script's value is the piece's factory, which evaluates the
 * piece's code and returns its exports. The host's pieces.ts says why the host does not compile.
 *
 * - The piece is compiled and evaluated inside the isolate, so it is charged to the program's
 *   memory limit like the runtime code it replaces.
 * - The host call is not an operation that waits on the host: a piece used by a module's top level
 *   while modules load still loads (internals.ts refuses only the waiting ones).
 * - A piece compiles at most once per isolate: the factory is kept from the first compile that
 *   succeeds. A step that throws (a stack overflow in the middle of the load, or of the piece's
 *   top level) keeps nothing and runs afresh on the next use, as a bundled module's evaluation does.
 * - A piece evaluates when a program has had every chance to replace globals, so its factory takes
 *   `Object` as a parameter and is handed the snapshot's Object functions, which the bundler's
 *   helpers read, and the snapshot's values of the other globals its top level reads. Beyond
 *   those, a piece reads globals at the same moments it did in the bundle.
 * - A piece made of the runtime's own modules (crypto, formBodies, dataUrl, legacyDecoders;
 *   scripts/build-runtime-piece.mjs)
 *   shares the modules the snapshot also holds instead of carrying copies (whose state would exist
 *   twice): its factory's third parameter is the record of the exports it reads from them, which
 *   the module that loads the piece passes (its generated piece-imports file, written by
 *   the generator from the piece's build), and the build turns each such import into a read of it.
 */
import { DOMException } from './dom-exception.ts';
import { hostOf } from './host.ts';
import {
  JSONParse,
  MathFloor,
  MathTrunc,
  NumberIsFinite,
  NumberIsNaN,
  ObjectCreate,
  ObjectFreeze,
  ObjectGetOwnPropertyNames,
  PromiseCtor,
  PromiseResolve,
  ReflectApply,
  ReflectDefineProperty,
  ReflectGetOwnPropertyDescriptor,
  StringFromCharCode,
  SymbolCtor,
} from './primordials.ts';

/** The engine's eval, called indirectly: a piece's script runs in global scope, never in this one. */
// biome-ignore lint/security/noGlobalEval: the runtime's own pieces, from the host; see the header.
const compile = globalThis.eval;

/** Every piece, by the name the host keeps its script under, with what its factory returns. */
export interface Pieces {
  readonly tr46: {
    toASCII(domain: string, options: object): string | null;
  };
  /** web-streams-polyfill's classes, and the prototype each had when it evaluated (streams/index.ts). */
  readonly streams: {
    readonly classes: Readonly<Record<string, { prototype: object }>>;
    readonly prototypes: Readonly<Record<string, object>>;
  };
  /** The legacy single-byte indexes' text, by encoding name (encoding/single-byte-tables.ts). */
  readonly singleByteTables: Readonly<Record<string, string>>;
  /** SubtleCrypto's operations (crypto/operations.ts). */
  readonly crypto: typeof import('./crypto/operations.ts');
  /** multipart/form-data and urlencoded bodies: FormData's serialization, and the parsers (fetch/form-bodies.ts). */
  readonly formBodies: typeof import('./fetch/form-bodies.ts');
  /** The data: URL processor fetch answers such a URL with (fetch/data-url.ts). */
  readonly dataUrl: typeof import('./fetch/data-url.ts');
  /** The decoders of UTF-16 and the legacy single-byte encodings (encoding/legacy-decoders.ts). */
  readonly legacyDecoders: typeof import('./encoding/legacy-decoders.ts');
  /** Node's util.format and util.inspect (node-inspect-extracted), as workerd's console formats (console-format.ts). */
  readonly inspect: { format(...values: unknown[]): string };
}

/** Object's own functions as the snapshot saw them, before any program could replace one. */
const snapshotObject: object = ObjectCreate(null);
for (const key of ObjectGetOwnPropertyNames(Object)) {
  const descriptor = ReflectGetOwnPropertyDescriptor(Object, key);
  if (descriptor !== undefined) ReflectDefineProperty(snapshotObject, key, descriptor);
}
ObjectFreeze(snapshotObject);

/**
 * The snapshot's values of the other globals a piece's top level reads (SNAPSHOT_VALUES in
 * scripts/build-whatwg-url.mjs and scripts/build-streams-piece.mjs): tr46's table is JSON.parse'd, and
 * punycode keeps Math.floor and String.fromCharCode, when they evaluate; the streams polyfill keeps
 * Promise's functions, Number.isFinite, Number.isNaN, Math.trunc and DOMException.
 */
const snapshotValues = ObjectFreeze({
  __proto__: null,
  JSONParse,
  MathFloor,
  StringFromCharCode,
  SymbolCtor,
  PromiseCtor,
  PromiseResolve,
  PromiseThen: PromiseCtor.prototype.then,
  PromiseReject: PromiseCtor.reject.bind(PromiseCtor),
  NumberIsFinite,
  NumberIsNaN,
  MathTrunc,
  DOMException,
});

/**
 * The snapshot's exports a piece reads, by the path of their module under src/, then by name; read
 * only by the piece's generated code, so no shape is declared here.
 */
export type PieceImports = object;

const NO_IMPORTS: PieceImports = ObjectFreeze(ObjectCreate(null));

type Factory<Name extends keyof Pieces> = (
  object: object,
  values: typeof snapshotValues,
  imports: PieceImports,
) => Pieces[Name];

const factories: { [Name in keyof Pieces]?: Factory<Name> } = ObjectCreate(null);
const exported: { [Name in keyof Pieces]?: Pieces[Name] } = ObjectCreate(null);

/**
 * The exports of the piece `name`, compiled into this isolate on the first call; `imports` is
 * what a piece made of the runtime's own modules reads from the snapshot's.
 */
export function loadPiece<Name extends keyof Pieces>(
  name: Name,
  imports: PieceImports = NO_IMPORTS,
): Pieces[Name] {
  const done = exported[name];
  if (done !== undefined) return done;
  let factory = factories[name] as Factory<Name> | undefined;
  if (factory === undefined) {
    factory = ReflectApply(compile, undefined, [hostOf().loadPiece(name)]) as Factory<Name>;
    factories[name] = factory as never;
  }
  const exports = factory(snapshotObject, snapshotValues, imports);
  exported[name] = exports;
  return exports;
}
