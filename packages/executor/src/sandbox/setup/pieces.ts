/**
 * The host's half of the runtime pieces (packages/runtime/src/pieces.ts): the parts of the runtime
 * kept out of the startup snapshot, which an isolate compiles the first time its program uses one.
 * The isolate asks through the loadPiece reference of the handshake, synchronously, with the
 * piece's name; the answer is the piece's source, which the runtime compiles itself.
 *
 * The host does not compile into the isolate, although isolated-vm would let it: a synchronous
 * compile or run on the host's thread, while the isolate's own thread waits in this call, ends with
 * isolated-vm's task epilogue (IsolateEnvironment::TaskEpilogue, from ThreePhaseTask::RunSync),
 * which performs a microtask checkpoint in the isolate. The program's pending reactions would then
 * run in the middle of its synchronous `new URL(...)`, and a memory limit met by that compile
 * reaches the program as an ordinary error. Copying a string in the answer of a synchronous call
 * does neither: the copy is metered and ends the run cleanly at the limit, like any allocation.
 * The cost is V8's code cache, which isolated-vm offers only to compiles made from the host.
 */
import { RUNTIME_PIECES } from '@supolka/codemode-runtime/pieces';

export const UNKNOWN_PIECE_MESSAGE = 'No runtime piece has that name.';

/** The function behind an isolate's loadPiece reference: the source of the piece named. */
export function pieceSource(name: unknown): string {
  if (typeof name !== 'string' || !Object.hasOwn(RUNTIME_PIECES, name))
    throw new Error(UNKNOWN_PIECE_MESSAGE);
  return RUNTIME_PIECES[name] as string;
}
