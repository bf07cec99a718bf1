/**
 * Positions in the entry code the Code Mode form made (entry-code.ts), told in the code as the model
 * wrote it. The form moves imports first, wraps statements in an arrow and returns the last
 * expression, so the entry holds slices of the model's code among text of its own; each slice is
 * recorded as it is copied, and a position inside one maps back, while one in the form's own text
 * maps to nothing. The sandbox has already mapped the engine's positions to the entry code
 * (docs/sandbox.md, "Error kinds, names and positions"); this is the second step, for the result
 * the form returns (docs/codemode.md, "Errors").
 */
import { ENTRY_NAME, type Position, positionAt } from '../sandbox/errors/positions.ts';
import {
  authorPosition,
  authorPositionInMessage,
  programStack,
  type StackSources,
} from '../sandbox/errors/stack.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';

/** One slice of the model's code in the entry code: where it sits there, where it came from, how long it is. */
export interface CopiedSlice {
  readonly at: number;
  readonly from: number;
  readonly length: number;
}

/** Builds a text from the form's own pieces and slices of another text, recording the slices. */
export class Assembly {
  readonly #parts: string[] = [];
  readonly #slices: CopiedSlice[] = [];
  #length = 0;

  literal(text: string): this {
    this.#parts.push(text);
    this.#length += text.length;
    return this;
  }

  /** Copies `text.slice(start, end)`, which sits at `base + start` of the model's code. */
  copy(text: string, start: number, end: number, base: number): this {
    if (end > start) this.#slices.push({ at: this.#length, from: base + start, length: end - start });
    return this.literal(text.slice(start, end));
  }

  get text(): string {
    return this.#parts.join('');
  }

  get slices(): readonly CopiedSlice[] {
    return this.#slices;
  }
}

export class CodePositions {
  readonly #entryLineStarts: readonly number[];
  readonly #slices: readonly CopiedSlice[];
  readonly #code: string;
  readonly #authorStart: Position;

  /**
   * `entry` is the code the sandbox ran, `code` what the form received, `authorFrom` where the
   * model's own text starts in it (past the wrapper createCodeTool's normalizeCode puts around it).
   */
  constructor(entry: string, code: string, slices: readonly CopiedSlice[], authorFrom: number) {
    const starts = [0];
    for (let index = entry.indexOf('\n'); index !== -1; index = entry.indexOf('\n', index + 1)) {
      starts.push(index + 1);
    }
    this.#entryLineStarts = starts;
    this.#slices = slices;
    this.#code = code;
    this.#authorStart = positionAt(code, authorFrom);
  }

  /** The model's position of a 1-based position in the entry code, or undefined for the form's own text. */
  toAuthor(entry: Position): Position | undefined {
    const lineStart = this.#entryLineStarts[entry.line - 1];
    if (lineStart === undefined) return undefined;
    const offset = lineStart + entry.column - 1;
    // Slices are recorded in the order they were copied, which is their order in the entry.
    let low = 0;
    let high = this.#slices.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const slice = this.#slices[middle] as CopiedSlice;
      if (offset < slice.at) high = middle - 1;
      else if (offset >= slice.at + slice.length) low = middle + 1;
      else return this.#relative(positionAt(this.#code, slice.from + offset - slice.at));
    }
    return undefined;
  }

  #relative(position: Position): Position | undefined {
    const start = this.#authorStart;
    if (position.line < start.line || (position.line === start.line && position.column < start.column)) {
      return undefined;
    }
    return {
      line: position.line - start.line + 1,
      column: position.line === start.line ? position.column - start.column + 1 : position.column,
    };
  }
}

/** Every position of the entry code is its own: the code ran as it was received. */
export function identityPositions(code: string): CodePositions {
  return new CodePositions(code, code, [{ at: 0, from: 0, length: code.length }], 0);
}

/**
 * The envelope with a syntax error's `[executor.js:LINE:COLUMN]`, the frames of its errorStack and
 * a failed tool call's errorAt told in the model's code; a frame on the form's own text is left out. Module frames are named by
 * their keys already, and stay.
 */
export function withAuthorPositions(
  envelope: ExecuteResult,
  positions: CodePositions | undefined,
): ExecuteResult {
  if (positions === undefined || envelope.error === undefined) return envelope;
  const sources: StackSources = { entryName: ENTRY_NAME, entry: positions, moduleKey: (name) => name };
  const mapped: ExecuteResult = { ...envelope };
  if (envelope.errorKind === 'syntax') mapped.error = authorPositionInMessage(envelope.error, sources);
  if (envelope.errorStack !== undefined) {
    const errorStack = programStack(envelope.errorStack, sources);
    if (errorStack === undefined) delete mapped.errorStack;
    else mapped.errorStack = errorStack;
  }
  if (envelope.errorAt !== undefined) {
    const errorAt = authorPosition(envelope.errorAt, sources);
    if (errorAt === undefined) delete mapped.errorAt;
    else mapped.errorAt = errorAt;
  }
  // The form took the code as statements already: the object form's hint would mislead here.
  delete mapped.hint;
  return mapped;
}
