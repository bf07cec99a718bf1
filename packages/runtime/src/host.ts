/**
 * The runtime's side of the host handshake. The isolate holds no capability of its own: every
 * operation that needs the host (random bytes, the network, cryptography) goes through a reference
 * the sandbox hands over once per isolate, in the second install step, and that only this module
 * keeps, in closures user code cannot reach.
 */
import type { HostReference } from './host-reference.ts';
import { ErrorCtor, ObjectFreeze, ReflectApply } from './primordials.ts';

export type { HostReference };

/** The references installRuntime hands over, by the name the runtime knows each under. */
export interface HostBindings {
  readonly randomUUID: HostReference;
  readonly randomBytes: HostReference;
  readonly sendRequest?: HostReference;
  readonly performSubtleOperation?: HostReference;
  /** Answers the source of a runtime piece (pieces.ts). */
  readonly loadPiece?: HostReference;
  /** The isolate's memory limit in MB, which bounds what its limit cannot meter (reserved-memory.ts). */
  readonly memoryLimit?: number;
}

type Bound = {
  sync(args: readonly unknown[], options?: object): unknown;
  async(args: readonly unknown[], options?: object): Promise<unknown>;
};

let host:
  | {
      randomUUID: Bound;
      randomBytes: Bound;
      sendRequest?: Bound;
      performSubtleOperation?: Bound;
      loadPiece: (name: string) => unknown;
    }
  | undefined;

/**
 * The options of a crossing whose result is copied in. Every option object the runtime hands
 * isolated-vm has no prototype: isolated-vm reads an option it does not find as an own property
 * through the prototype chain, so a program's getter on Object.prototype (`reference`, `arguments`,
 * `timeout`...) would otherwise set the options of the runtime's own calls.
 */
export const COPY_RESULT: object = ObjectFreeze({
  __proto__: null,
  result: ObjectFreeze({ __proto__: null, copy: true }),
});

export const PIECE_LOADER_MISSING_MESSAGE =
  'The runtime piece cannot load: the host gave this isolate no piece loader.';

/** Methods read once, at the handshake, so a later change to any prototype cannot redirect a call. */
function bind(reference: HostReference): Bound {
  const applySync = reference.applySync;
  const apply = reference.apply;
  return {
    sync: (args, options) => ReflectApply(applySync, reference, [undefined, args, options]),
    async: (args, options) => ReflectApply(apply, reference, [undefined, args, options]) as Promise<unknown>,
  };
}

export function connectHost(bindings: HostBindings): void {
  host = {
    randomUUID: bind(bindings.randomUUID),
    randomBytes: bind(bindings.randomBytes),
    ...(bindings.sendRequest ? { sendRequest: bind(bindings.sendRequest) } : {}),
    ...(bindings.performSubtleOperation
      ? { performSubtleOperation: bind(bindings.performSubtleOperation) }
      : {}),
    loadPiece: bindings.loadPiece ? bindPieceLoader(bindings.loadPiece) : missingPieceLoader,
  };
}

function missingPieceLoader(): never {
  throw new ErrorCtor(PIECE_LOADER_MISSING_MESSAGE);
}

/** The piece loader answers a piece's source, as a string, or throws. */
function bindPieceLoader(reference: HostReference): (name: string) => unknown {
  const { sync } = bind(reference);
  return (name) => sync([name]);
}

/** The connected host, or a clear failure when the isolate never went through the handshake. */
export function hostOf(): NonNullable<typeof host> {
  if (host === undefined)
    throw new ErrorCtor('The runtime was used before the sandbox connected it to the host.');
  return host;
}
