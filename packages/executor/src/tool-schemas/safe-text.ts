/**
 * Text from a tool's author (a description, a property name, a failure reason: an MCP upstream's, or
 * a library caller's) or from a program (the arguments of a call) lands in places a model or a
 * person reads as structure: the ```ts block and the doc comments of a code tool's description, and
 * the MCP bridge's approval question. The bridge and describeTools share it. One sanitizer makes such
 * text unable to change that structure or to look different from what it is: every character that
 * ends a line other than `\n`, moves or hides text (C0 and C1 controls, a lone CR, U+2028/2029, the
 * bidirectional controls, zero-width characters) is written as its `\uXXXX` escape, a code fence
 * (three backticks or tildes) is broken, and a comment terminator is escaped. The escapes read the
 * same inside a TypeScript string literal, so a quoted name keeps its meaning.
 */

/**
 * C0 controls but `\n`, DEL and C1, U+2028/2029, the bidi embeddings, overrides and isolates
 * (U+202A-202E, U+2066-2069, and the marks U+200E/200F, U+061C), and the zero-width and invisible
 * characters (U+200B-200D, U+2060-2064, U+FEFF, U+180E, U+00AD).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const UNSAFE = /[\0-\t\v-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
/** A run of three or more backticks or tildes opens or closes a Markdown code block. */
const FENCE = /([`~])(?=\1\1)/g;

function escaped(char: string): string {
  return `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, '0')}`;
}

/** `text` made safe for a code block, a doc comment or a question (see above). */
export function safeText(text: string): string {
  return text
    .replaceAll('\r\n', '\n')
    .replace(UNSAFE, escaped)
    .replace(FENCE, escaped)
    .replaceAll('*/', '*\\/');
}

/** Whether `text` is printable ASCII only: a name that is not may imitate another. */
export function isPlainAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

/**
 * `text` cut to `limit` characters, the cut named by its bound (`name`, as docs/mcp.md and
 * docs/codemode.md list them) so a reader knows which limit to look up; a cut never splits a
 * surrogate pair.
 */
export function cutText(text: string, limit: number, name: string): string {
  if (text.length <= limit) return text;
  let end = limit;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… [cut: ${text.length} characters, the first ${end} shown (${name})]`;
}
