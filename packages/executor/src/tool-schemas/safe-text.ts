/**
 * Text from a tool's author (a description, a property name, a failure reason: an MCP upstream's, or
 * a library caller's) or from a program (the arguments of a call) lands in places a model or a
 * person reads as structure: the ```ts block and the doc comments of a code tool's description, and
 * the MCP bridge's approval question. The bridge and describeTools share it. One sanitizer makes such
 * text unable to change that structure or to look different from what it is: every character that
 * ends a line other than `\n`, moves or hides text (C0 and C1 controls, a lone CR, U+2028/2029, the
 * bidirectional controls, zero-width and other invisible characters) is written as its `\uXXXX` escape, a code fence
 * (three backticks or tildes) is broken, and a comment terminator is escaped. The escapes read the
 * same inside a TypeScript string literal, so a quoted name keeps its meaning.
 */

/**
 * Every control but `\n` (C0, DEL, C1), every format character (the bidi embeddings, overrides,
 * isolates and marks, the zero-width characters, U+2028/2029's kin), and every character Unicode
 * says a renderer may show as nothing (Default_Ignorable_Code_Point: the tag characters
 * U+E0000-E007F, which spell ASCII no one sees but a model reads, the variation selectors, the Hangul
 * fillers, U+034F), with U+2800 and U+FFFC, which show as a blank and a box. A review's approval
 * question showed a person `"Buy milk"` while its value carried 67 tag characters spelling an
 * instruction to the model.
 */
const UNSAFE = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\ufffc]/gu;
/** A run of three or more backticks or tildes opens or closes a Markdown code block. */
const FENCE = /([`~])(?=\1\1)/g;

/** A pictograph (an emoji's base), which one variation selector after it may show as text or emoji. */
const PICTOGRAPH = /\p{Extended_Pictographic}$/u;

/**
 * The character at `offset` escaped (escaped()), unless it is the one U+FE0E or U+FE0F that
 * follows a pictograph (`⚠️`): a single selector there chooses how the emoji is drawn and can carry
 * no text, where runs of selectors can.
 */
function escapedAt(char: string, offset: number, text: string): string {
  if (
    (char === '\ufe0f' || char === '\ufe0e') &&
    PICTOGRAPH.test(text.slice(Math.max(0, offset - 2), offset))
  )
    return char;
  return escaped(char);
}

/** `\uXXXX`, or `\u{XXXXX}` past U+FFFF: both read as the character in a TypeScript string. */
function escaped(char: string): string {
  const point = char.codePointAt(0) as number;
  return point > 0xffff ? `\\u{${point.toString(16)}}` : `\\u${point.toString(16).padStart(4, '0')}`;
}

/** `text` made safe for a code block, a doc comment or a question (see above). */
export function safeText(text: string): string {
  return text
    .replaceAll('\r\n', '\n')
    .replace(UNSAFE, escapedAt)
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
