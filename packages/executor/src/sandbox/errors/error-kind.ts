/**
 * The kind of an error the host observed before any user code ran: a source that did not compile,
 * a module the linker could not find, TypeScript that erasure refused. Only errors raised by a
 * compile, a link or an erasure are classified here; a program's own throw never reaches this,
 * so a program that throws a SyntaxError still reads as `thrown` (docs/sandbox.md, "Error kinds,
 * names and positions").
 */
import { type ErrorKind, ModuleNotFoundError } from '@supolka/codemode-protocol/wire';

/**
 * TypeScript that erasure alone cannot turn into JavaScript (an enum, a namespace, a parameter
 * property): the envelope's errorKind reads `typescript` for it.
 */
export class TypeErasureRefusedError extends Error {
  override name = 'TypeErasureRefusedError';
}

/** The kind of a failure of compiling, linking or erasing; undefined for any other failure. */
export function preparationErrorKind(error: unknown): ErrorKind | undefined {
  if (error instanceof ModuleNotFoundError) return 'module-not-found';
  if (error instanceof TypeErasureRefusedError) return 'typescript';
  // isolated-vm raises the engine's parse failure as a host SyntaxError.
  if (error instanceof SyntaxError) return 'syntax';
  return undefined;
}
