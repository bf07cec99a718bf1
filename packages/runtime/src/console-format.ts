/**
 * The console's workerd format: a line made of the arguments as workerd's console makes it, with
 * Node's util.format (format specifiers applied, objects inspected: `x { a: 1 }`, `Map(1) { 1 => 2 }`).
 * The protocol's own rule (String of each argument, single spaces) stays the console's default; a
 * request that asks for `consoleFormat: 'inspect'` gets this (the sandbox's inside/console.ts
 * switches). The formatter is the `inspect` piece, kept out of the snapshot and compiled by the
 * first line that needs it (pieces.ts); docs/runtime-deviations.md lists where it still differs.
 */
import { loadPiece } from './pieces.ts';
import { ReflectApply } from './primordials.ts';

/** The line workerd's console would write for `values`. Throws what the formatter throws. */
export function formatInspect(values: unknown[]): string {
  const { format } = loadPiece('inspect');
  return ReflectApply(format, undefined, values) as string;
}
