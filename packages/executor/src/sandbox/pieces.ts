/**
 * The host's half of the runtime pieces (packages/runtime/src/pieces.ts): the parts of the runtime
 * kept out of the startup snapshot, compiled into an isolate the first time its program uses one.
 * The isolate asks through the loadPiece reference of the handshake, synchronously, with the
 * piece's name; the answer is a reference to the piece's factory, which the runtime derefs.
 *
 * The compile runs re-entrantly, from inside the isolate's own synchronous call: the calling
 * thread has released the isolate's lock while it waits on this one, so isolated-vm's synchronous
 * compile and run take it here (its RunSync, the default thread's path); when the isolate already
 * runs on this thread, they reuse the lock it holds.
 *
 * V8's code cache for each piece is made by the first compile in this process and reused by every
 * later isolate. It comes from the piece's source alone, before any program code runs beside it.
 */
import type ivm from 'isolated-vm';
import { RUNTIME_PIECES } from './generated/runtime-pieces.generated.ts';
import type { IsolateHandle } from './isolate.ts';

export const UNKNOWN_PIECE_MESSAGE = 'No runtime piece has that name.';

const cachedData = new Map<string, ivm.ExternalCopy<ArrayBuffer>>();

/**
 * The function behind an isolate's loadPiece reference: compiles each piece at most once per
 * isolate, and answers a repeated request with the same factory. The runtime keeps the first
 * answer, but a stack overflow can strike inside the isolate between this answer and the moment it
 * is kept; asking again then costs no second compile, and cannot fail where the first succeeded.
 */
export function pieceReference(handle: IsolateHandle): (name: unknown) => ivm.Reference<unknown> {
  const factories = new Map<string, ivm.Reference<unknown>>();
  return (name) => {
    if (typeof name !== 'string' || !Object.hasOwn(RUNTIME_PIECES, name))
      throw new Error(UNKNOWN_PIECE_MESSAGE);
    const known = factories.get(name);
    if (known !== undefined) return known;
    const cached = cachedData.get(name);
    const script: ivm.Script & ivm.CachedDataResult = handle.isolate.compileScriptSync(
      RUNTIME_PIECES[name] as string,
      {
        filename: `codemode-runtime-${name}.js`,
        ...(cached === undefined ? { produceCachedData: true } : { cachedData: cached }),
      },
    );
    try {
      if (cached === undefined && script.cachedData !== undefined) cachedData.set(name, script.cachedData);
      // The script only defines the factory; what it evaluates runs when the runtime calls it.
      const factory = script.runSync(handle.context, { reference: true }) as ivm.Reference<unknown>;
      factories.set(name, factory);
      return factory;
    } finally {
      script.release();
    }
  };
}
