/**
 * TypeScript in a request: language models write type annotations even when asked not to. Types are
 * erased by amaro (the stripper Node itself uses), which replaces each annotation with whitespace:
 * every position stays where the user wrote it, and no import is dropped. Constructs that need
 * more than erasure (enums, namespaces, parameter properties) are refused with an error naming the
 * construct and the line. Which sources are erased at all (code that does not parse as JavaScript,
 * and .ts modules) is the caller's decision (docs/sandbox.md, "TypeScript").
 *
 * amaro is a WebAssembly build of swc, and an input that overflows its stack or its memory leaves
 * that instance broken: every later call fails with "memory access out of bounds". So any failure
 * other than a syntax verdict discards the instance, and the next call loads amaro anew, with a
 * fresh WebAssembly instance (about 140 ms). One erasure can never break another.
 */
import { createRequire } from 'node:module';
import { BadRequestError } from '@supolka/codemode-protocol/wire';
import { TypeErasureRefusedError } from '../errors/error-kind.ts';

type Transform = (source: string, options: { mode: 'strip-only'; filename: string }) => { code: string };

const require = createRequire(import.meta.url);
let amaroEntry: string | undefined;
let transform: Transform | undefined;

/**
 * Where amaro's entry is, found with the first erasure: a process that erases nothing (most pool
 * children, whose erasure runs in a thread when it runs at all) does not look it up at its start.
 */
function amaroEntryPath(): string {
  amaroEntry ??= require.resolve('amaro');
  return amaroEntry;
}

/** amaro's transformSync, from the instance in use or from a fresh one. */
function amaro(): Transform {
  transform ??= (require(amaroEntryPath()) as { transformSync: Transform }).transformSync;
  return transform;
}

/** Forgets the instance: its modules leave the require cache, so the next load instantiates anew. */
function discardEraser(): void {
  transform = undefined;
  const entry = amaroEntryPath();
  const directory = entry.slice(0, entry.lastIndexOf('/') + 1);
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(directory)) delete require.cache[key];
  }
}

/** Module keys whose sources are TypeScript. */
export function isTypeScriptModule(name: string): boolean {
  return /\.(ts|mts|cts)$/.test(name);
}

interface StripError {
  code: 'UnsupportedSyntax' | 'InvalidSyntax';
  message: string;
  startLine?: number;
}

function isStripError(error: unknown): error is StripError {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'UnsupportedSyntax' || code === 'InvalidSyntax';
}

/** What an erasure that failed for a reason other than the source's syntax reports. */
export function eraserFailedMessage(name: string): string {
  return `Erasing the types of ${name} failed inside the type eraser (its parser ran out of stack or memory): write it with less nesting, or as plain JavaScript.`;
}

export function eraseTypes(source: string, name: string): string {
  try {
    return amaro()(source, { mode: 'strip-only', filename: name }).code;
  } catch (error) {
    if (!isStripError(error)) {
      discardEraser();
      throw new BadRequestError(eraserFailedMessage(name));
    }
    // Code that does not parse goes on as written, so the engine reports its own syntax error.
    if (error.code === 'InvalidSyntax') return source;
    const construct = error.message.replace(/ is not supported in strip-only mode\.?$/, '');
    const where = error.startLine === undefined ? name : `${name}, line ${error.startLine}`;
    throw new TypeErasureRefusedError(
      `${construct} (${where}) needs more than type erasure, and only erasure is done here: write it as plain JavaScript (an object for an enum, a module for a namespace, a field assigned in the constructor for a parameter property).`,
    );
  }
}
