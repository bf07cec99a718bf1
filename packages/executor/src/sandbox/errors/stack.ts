/**
 * The envelope's errorStack: the program's own frames of a thrown error's stack, at the positions
 * its author wrote, built on the host from the stack text V8 gave inside the isolate. A frame is
 * kept only when it lies in the request's code (the entry's imports and arrow, mapped back) or in
 * a module of the request's map (named by its key as the request spelled it); every other frame
 * (the sandbox's machinery, the runtime, built-ins) is left out, so no frame of the host and no
 * path of the host can appear. The text is the program's data (a program can shape its own stack),
 * so it is bounded and parsed line by line, never trusted.
 */
import {
  ERROR_AT_LIMIT,
  ERROR_FRAME_NAME_LIMIT,
  ERROR_STACK_FRAME_LIMIT,
  ERROR_STACK_LIMIT,
} from '@supolka/codemode-protocol/wire';
import type { Position } from './positions.ts';

/** The most of a thrown error's stack text that leaves the isolate for this parse. */
export const STACK_READ_LIMIT = 65_536;

export interface StackSources {
  /** The file name the entry compiles under. */
  readonly entryName: string;
  /** Positions in the entry, back to the code (positions.ts; the Code Mode form's code-positions.ts). */
  readonly entry: { toAuthor(position: Position): Position | undefined };
  /** The request's spelling of a module's key, by the name it compiles under; undefined for names that are no module of the map. */
  readonly moduleKey: (name: string) => string | undefined;
}

interface Frame {
  readonly name: string | undefined;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** The program's frames of `raw`, in order, at the author's positions. */
function* programFrames(raw: string, sources: StackSources): Generator<Frame> {
  for (const text of raw.slice(0, STACK_READ_LIMIT).split('\n')) {
    const frame = parseFrame(text);
    const shown = frame === undefined ? undefined : programFrame(frame, sources);
    if (shown !== undefined) yield shown;
  }
}

/**
 * Where the program's first frame of `raw` is, `FILE:LINE:COLUMN` at the author's position (the
 * envelope's errorAt), or undefined when no frame is the program's or the text passes ERROR_AT_LIMIT.
 */
export function programPosition(raw: string, sources: StackSources): string | undefined {
  for (const frame of programFrames(raw, sources)) {
    const at = `${frame.file}:${frame.line}:${frame.column}`;
    return at.length <= ERROR_AT_LIMIT ? at : undefined;
  }
  return undefined;
}

/** A `FILE:LINE:COLUMN` position moved to the author's position by `sources`; undefined when it is not the program's. */
export function authorPosition(at: string, sources: StackSources): string | undefined {
  return programPosition(`    at ${at}`, sources);
}

/** The program's frames of `raw`, one `    at ...` line each, or undefined when none is the program's. */
export function programStack(raw: string, sources: StackSources): string | undefined {
  const lines: string[] = [];
  let length = 0;
  for (const shown of programFrames(raw, sources)) {
    if (lines.length === ERROR_STACK_FRAME_LIMIT) break;
    const line =
      shown.name === undefined
        ? `    at ${shown.file}:${shown.line}:${shown.column}`
        : `    at ${shown.name} (${shown.file}:${shown.line}:${shown.column})`;
    // A frame that does not fit whole is left out, and so is every one after it.
    if (length + line.length + (lines.length > 0 ? 1 : 0) > ERROR_STACK_LIMIT) break;
    length += line.length + (lines.length > 0 ? 1 : 0);
    lines.push(line);
  }
  return lines.length === 0 ? undefined : lines.join('\n');
}

/** The frame at the author's position, or undefined when it is not the program's. */
function programFrame(frame: Frame, sources: StackSources): Frame | undefined {
  if (frame.file === sources.entryName) {
    const position = sources.entry.toAuthor(frame);
    return position === undefined ? undefined : { ...frame, ...position };
  }
  const key = sources.moduleKey(frame.file);
  return key === undefined ? undefined : { ...frame, file: key };
}

/**
 * One line of V8's stack text: `at NAME (FILE:LINE:COLUMN)` or `at FILE:LINE:COLUMN`. Anything
 * else (the message line, `<anonymous>`, native frames, eval origins) is undefined.
 */
export function parseFrame(text: string): Frame | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('at ')) return undefined;
  let rest = trimmed.slice(3);
  let name: string | undefined;
  if (rest.endsWith(')')) {
    const open = rest.lastIndexOf(' (');
    if (open === -1) return undefined;
    name = rest.slice(0, open).slice(0, ERROR_FRAME_NAME_LIMIT);
    rest = rest.slice(open + 2, -1);
  }
  const columnAt = rest.lastIndexOf(':');
  const lineAt = columnAt === -1 ? -1 : rest.lastIndexOf(':', columnAt - 1);
  if (lineAt <= 0) return undefined;
  const line = positiveInteger(rest.slice(lineAt + 1, columnAt));
  const column = positiveInteger(rest.slice(columnAt + 1));
  if (line === undefined || column === undefined) return undefined;
  return { name, file: rest.slice(0, lineAt), line, column };
}

function positiveInteger(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,8}$/.test(text)) return undefined;
  return Number(text);
}

/**
 * A compile error's message with its `[FILE:LINE:COLUMN]` suffix (isolated-vm appends it) at the
 * author's position: the entry's lines mapped back to the code, a module's name as the request's
 * key. The form stays; only the numbers and the module's spelling change. A suffix in the sandbox's
 * own lines, or a message without one, is returned as it is.
 */
export function authorPositionInMessage(message: string, sources: StackSources): string {
  if (!message.endsWith(']')) return message;
  const open = message.lastIndexOf(' [');
  if (open === -1) return message;
  const frame = parseFrame(`at ${message.slice(open + 2, -1)}`);
  if (frame === undefined) return message;
  const shown = programFrame(frame, sources);
  if (shown === undefined) return message;
  return `${message.slice(0, open)} [${shown.file}:${shown.line}:${shown.column}]`;
}
