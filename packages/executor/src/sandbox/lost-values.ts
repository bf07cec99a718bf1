/**
 * The envelope's `notes` (issue 26 item 9): what a result or a tool call's arguments lost on the way
 * out, since JSON (the dispatch codec) carries no Map, Set, function, undefined, NaN, -0 or
 * promise and turns each into something else without a word. The run support watches the codec's
 * own walk (inside/run-support.ts), so it reads nothing the codec does not read and runs no code of
 * the program's a second time; it notes what it saw, each note a path and what happened there.
 * The texts are defined here, once, and bound into the run support; the bounds are why the walk's
 * cost stays small beside the serialization it watches (docs/sandbox.md measures it).
 */

import { NOTE_LIMIT, NOTE_TEXT_LIMIT } from '@supolka/codemode-protocol/wire';

/** Values of one serialization the walk looks at; past them the codec goes on alone. */
export const NOTE_WALK_VALUES = 10_000;

/** How deep the walk looks; values deeper than this are serialized unlooked-at. */
export const NOTE_WALK_DEPTH = 32;

/** The longest path a note names; a longer one is cut, with an ellipsis. */
export const NOTE_PATH_LIMIT = 300;

/** What happened to a value, after its path and a colon. */
export const LOST_VALUE_TEXTS = {
  functionDropped: 'a function was dropped',
  functionNull: 'a function became null',
  symbolDropped: 'a symbol was dropped',
  symbolNull: 'a symbol became null',
  undefinedDropped: 'undefined was dropped',
  undefinedNull: 'undefined became null',
  nan: 'NaN became null',
  infinity: 'Infinity became null',
  negativeInfinity: '-Infinity became null',
  negativeZero: '-0 became 0',
  map: 'a Map lost its entries (JSON has no Map: send Object.fromEntries(map) or [...map])',
  set: 'a Set lost its values (JSON has no Set: send [...set])',
  promise: 'a Promise became {} (is an await missing?)',
  error: 'an Error lost its message and stack (send error.message)',
  /** After `a NAME`: an object of a class with no own enumerable property (a RegExp, a Headers). */
  empty: 'became {}',
} as const;

/** The last note when more values lost information than NOTE_LIMIT notes can say. */
export const NOTES_OVERFLOW_TEXT = 'More values lost information than these notes list.';

/**
 * Adds a note the run support sent to a run's `notes`, or with no note the overflow, in the last
 * place. The isolate sends each note once and stops at NOTE_LIMIT; the host bounds what it keeps
 * anyway, since the isolate is the program's.
 */
export function noteLost(notes: string[], note: unknown): void {
  if (note === undefined) {
    if (notes.length > 0) notes[Math.min(notes.length, NOTE_LIMIT) - 1] = NOTES_OVERFLOW_TEXT;
    return;
  }
  if (typeof note === 'string' && notes.length < NOTE_LIMIT) notes.push(note.slice(0, NOTE_TEXT_LIMIT));
}
