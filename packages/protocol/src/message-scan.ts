/**
 * One linear pass over a message's JSON text, before anything parses it: how many objects, arrays,
 * members, strings, numbers and literals the parse would create, and the envelope's `type` and
 * `id` when they are plain strings of the top-level object.
 *
 * A receiver needs this because JSON text decodes to far more than its size: `[{},{},...]` costs
 * V8 about 64 heap bytes per 3 bytes of text, so a message within PAYLOAD_LIMIT can take most of a
 * heap once parsed (docs/threat-model.md). Counting first lets the receiver refuse by what the
 * parse would build, and still answer the conversation the message names.
 *
 * The pass counts tokens, not a verified grammar: for valid JSON every count is exact (a duplicate
 * key counts each time it is written, as each is parsed); for invalid JSON the parse stops at the
 * first error and never builds more than what was counted up to there. Strings are skipped with
 * indexOf, each backslash looked at once, so the pass is linear in the text and never throws.
 */

export interface MessageScan {
  readonly objects: number;
  readonly arrays: number;
  /** Key-value pairs of objects: one per `:` outside strings. Each key is also one of `strings`. */
  readonly members: number;
  /** Every string, keys included. */
  readonly strings: number;
  readonly numbers: number;
  /** `true`, `false` and `null`. */
  readonly literals: number;
  /** The top-level object's `type`, when it is a string. */
  readonly type?: string;
  /** The top-level object's `id`, when it is a string of at most ENVELOPE_FIELD_LIMIT characters. */
  readonly id?: string;
  /** False when the scan stopped past `valueLimit`: the counts then read at least that much. */
  readonly complete: boolean;
}

/** Characters of a `type` or `id` the scan reads back: an id is at most 128 characters (MessageIdSchema). */
const ENVELOPE_FIELD_LIMIT = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;

/** JSON values the scan counted: keys are strings but not values. */
export function valueCount(scan: MessageScan): number {
  return scan.objects + scan.arrays + scan.strings - scan.members + scan.numbers + scan.literals;
}

/**
 * Scans `text`. Past `valueLimit` values the scan stops, since a message that holds more is refused
 * whatever the rest says; the counts then are what it saw, and the envelope fields if they came first.
 */
export function scanMessage(text: string, valueLimit: number = Number.POSITIVE_INFINITY): MessageScan {
  let objects = 0;
  let arrays = 0;
  let members = 0;
  let strings = 0;
  let numbers = 0;
  let literals = 0;
  let depth = 0;
  let topIsObject = false;
  let tokens = 0;
  let values = 0;
  let complete = true;
  // Inside the top-level object: the string just read (a key if a colon follows), and the field
  // whose value comes next.
  let lastString = -1;
  let lastStringEnd = -1;
  let field: 'type' | 'id' | undefined;
  let type: string | undefined;
  let id: string | undefined;
  const length = text.length;
  let at = 0;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
      at++;
      continue;
    }
    tokens++;
    // Checked at a token other than a colon: a key counts as a value until its colon follows.
    if (values > valueLimit && code !== COLON) {
      complete = false;
      break;
    }
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      strings++;
      values++;
      if (depth === 1 && topIsObject) {
        if (field !== undefined) {
          const value = readString(text, at, end);
          if (field === 'type') type = value;
          else id = value;
          field = undefined;
        } else {
          lastString = at;
          lastStringEnd = end;
        }
      }
      at = end + 1;
      continue;
    }
    const wasString = lastString;
    lastString = -1;
    field = undefined;
    if (code === COLON) {
      members++;
      values--;
      if (depth === 1 && topIsObject && wasString !== -1) {
        const key = text.slice(wasString, lastStringEnd + 1);
        if (key === '"type"') {
          field = 'type';
          type = undefined;
        } else if (key === '"id"') {
          field = 'id';
          id = undefined;
        }
      }
      at++;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (code === OPEN_OBJECT) {
        objects++;
        if (tokens === 1) topIsObject = true;
      } else arrays++;
      values++;
      depth++;
      at++;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      at++;
    } else if (code === MINUS || (code >= 0x30 && code <= 0x39)) {
      numbers++;
      values++;
      at++;
      while (at < length && isNumberPart(text.charCodeAt(at))) at++;
    } else if (code >= 0x61 && code <= 0x7a) {
      literals++;
      values++;
      at++;
      while (at < length && isLetter(text.charCodeAt(at))) at++;
    } else {
      // A comma, or a character no JSON holds here (where the parse would stop).
      at++;
    }
  }
  return {
    objects,
    arrays,
    members,
    strings,
    numbers,
    literals,
    ...(type !== undefined ? { type } : {}),
    ...(id !== undefined ? { id } : {}),
    complete,
  };
}

/** The index of the quote that closes the string opened at `start`, or the text's length. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    // An odd run of backslashes escapes the quote. The run never reaches back past the previous
    // quote, so each backslash is looked at once.
    let before = quote - 1;
    while (before > start && text.charCodeAt(before) === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The string token from `start` to its closing quote `end`, decoded, if it is short and valid. */
function readString(text: string, start: number, end: number): string | undefined {
  if (end >= text.length || end - start > ENVELOPE_FIELD_LIMIT) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

function isNumberPart(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45 ||
    code === 0x2b ||
    code === MINUS
  );
}

function isLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}
