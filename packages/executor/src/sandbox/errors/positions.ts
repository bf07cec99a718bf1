/**
 * Positions in the entry module, told in the program as its author wrote it. The entry wraps the
 * request's code (entry/entry.ts): its imports and its arrow sit on lines of their own among lines the
 * sandbox wrote. An engine position (1-based line and column, as V8 prints them) inside one of
 * those pieces maps back to the code; one in the sandbox's own lines maps to nothing.
 */

/**
 * The file name the entry compiles under (executor.js, as docs/sandbox.md names it); relative imports in
 * it resolve from the root. Defined here, beside the positions that name it, so the Code Mode
 * result reads it without loading the linker.
 */
export const ENTRY_NAME = 'executor.js';

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** A piece of the code placed in the entry: where it starts there (at column 1), and in the code. */
export interface PlacedPiece {
  /** The 1-based entry line the piece starts on. */
  readonly entryLine: number;
  /** How many lines the piece spans. */
  readonly lines: number;
  /** Where the piece starts in the code as written. */
  readonly original: Position;
}

/** The 1-based line and column of `offset` in `text`. Linear in the offset. */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** How many lines `text` spans: one more than the line breaks it holds. */
export function lineCount(text: string): number {
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}

export class PositionMap {
  readonly #pieces: readonly PlacedPiece[];

  constructor(pieces: readonly PlacedPiece[]) {
    this.#pieces = pieces;
  }

  /** The author's position of an entry position, or undefined for a line the sandbox wrote. */
  toAuthor(entry: Position): Position | undefined {
    for (const piece of this.#pieces) {
      const offset = entry.line - piece.entryLine;
      if (offset < 0 || offset >= piece.lines) continue;
      // Only the piece's first line shares its line with code before it in the original.
      return {
        line: piece.original.line + offset,
        column: offset === 0 ? piece.original.column + entry.column - 1 : entry.column,
      };
    }
    return undefined;
  }
}
