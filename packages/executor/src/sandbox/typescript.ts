/**
 * TypeScript in a request: language models write type annotations even when asked not to. Types are
 * erased before the entry is built, by amaro (the stripper Node itself uses), which replaces each
 * annotation with whitespace: every position stays where the user wrote it, and no import is
 * dropped. Constructs that need more than erasure (enums, namespaces, parameter properties) are
 * refused with an error naming the construct and the line.
 */
import { transformSync } from 'amaro';

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

export function eraseTypes(source: string, name: string): string {
  try {
    return transformSync(source, { mode: 'strip-only', filename: name }).code;
  } catch (error) {
    if (!isStripError(error)) throw error;
    // Code that does not parse goes on as written, so the engine reports its own syntax error.
    if (error.code === 'InvalidSyntax') return source;
    const construct = error.message.replace(/ is not supported in strip-only mode\.?$/, '');
    const where = error.startLine === undefined ? name : `${name}, line ${error.startLine}`;
    throw new Error(
      `${construct} (${where}) needs more than type erasure, and only erasure is done here: write it as plain JavaScript (an object for an enum, a module for a namespace, a field assigned in the constructor for a parameter property).`,
    );
  }
}
