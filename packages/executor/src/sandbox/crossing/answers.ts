/**
 * Asynchronous answers into an isolate: what a host promise may resolve with.
 *
 * isolated-vm copies the value a host promise settles with into the isolate in a task of its own
 * (the ResolveTask of a transferred promise, run from IsolateEnvironment::AsyncEntry). When that
 * copy finds the isolate past its memory limit, HeapCheck::Epilogue throws the engine's
 * termination (FatalRuntimeError) where nothing catches it, and the whole process aborts
 * (SIGABRT, std::exception) with every other isolate in it. The check runs only when the copy
 * changed the isolate's external memory: any ArrayBuffer does, and so does a string of 1024 bytes
 * or more, which arrives as an external string. A number, or a string under 1024 bytes, is copied
 * onto the engine's heap without the check, which the engine's own limit then meters.
 *
 * The same copy, with the same check, carries the arguments of a call the host makes into the
 * isolate in a task of its own (applyIgnored), which is how a tool call's answer arrives
 * (dispatch.ts).
 *
 * So an asynchronous answer carries only such a value: a short text itself, or the number under
 * which the host holds the answer. The isolate takes a held answer at once with a synchronous call
 * of the same reference. There the copy runs inside a call, and a copy past the limit ends the run
 * cleanly (MEMORY_LIMIT), as any other allocation past the limit does.
 */
import { Buffer } from 'node:buffer';

/** The longest text that crosses inline in any representation: 511 UTF-16 units are 1022 bytes. */
export const INLINE_ANY_TEXT = 511;

/** The longest text that crosses inline once it is held as one byte a character. */
export const INLINE_LATIN1_TEXT = 1023;

/** Answers the host holds until the isolate takes them, each under a number of its own. */
export class HeldAnswers<T> {
  readonly #held = new Map<number, T>();
  #next = 0;

  get size(): number {
    return this.#held.size;
  }

  hold(answer: T): number {
    const id = ++this.#next;
    this.#held.set(id, answer);
    return id;
  }

  /** The answer held under `id`, once; undefined for any other value. */
  take(id: unknown): T | undefined {
    if (typeof id !== 'number') return undefined;
    const answer = this.#held.get(id);
    this.#held.delete(id);
    return answer;
  }
}

/**
 * `text` as it may cross asynchronously: itself when its copy cannot meet the limit check, else
 * the number `held` keeps it under. A Latin-1 text of up to 1023 characters is rebuilt as a one-byte
 * string first, since the engine may store such a text two bytes a character.
 */
export function inlineOrHeld(text: string, held: HeldAnswers<string>): string | number {
  return inlineText(text) ?? held.hold(text);
}

/** `text` in a form whose copy cannot meet the limit check, or undefined when it has none. */
export function inlineText(text: string): string | undefined {
  if (text.length <= INLINE_ANY_TEXT) return text;
  if (text.length <= INLINE_LATIN1_TEXT && isLatin1(text))
    return Buffer.from(text, 'latin1').toString('latin1');
  return undefined;
}

function isLatin1(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0xff) return false;
  return true;
}
