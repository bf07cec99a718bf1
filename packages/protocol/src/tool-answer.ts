/**
 * Whether a tool's answer says it failed, read from the answer's JSON text without parsing it. A
 * serving function answers every call with a result envelope (docs/protocol.md, "Frames"):
 * `{"result": ...}`, or `{"error": "..."}` for a tool that threw or does not exist. A server
 * counting outcomes, or a span recording one, must not parse what may be megabytes a second time
 * (and outside the budget the message was admitted under) to tell the two apart: the error
 * envelope opens with its `error` key, as every serving function of this project writes it.
 */

/** `{"error": "` and a first character of the text: an empty error is no error to the sandbox either. */
const OPENING = /^\s*\{\s*"error"\s*:\s*"[^"]/;

/**
 * True when `json`, a tool's result envelope as codec JSON, is the error envelope: an object whose
 * first key is `error`, a text that is not empty (whitespace allowed around them, as another
 * language's JSON writer may put it). Only the first characters are looked at, whatever the
 * answer's length.
 */
export function isErrorAnswer(json: string): boolean {
  // A leading run of whitespace longer than this is no envelope a serving function writes.
  return OPENING.test(json.slice(0, 256));
}
