/**
 * The headings of one markdown file, as a reference into it may name them: by the text a reader
 * sees (quoted after the file's path) or by the anchor GitHub gives it (after a `#`). A reference
 * is only as good as the heading it lands on, so both are read the way GitHub renders the file.
 */

export interface Heading {
  /** The heading's text as written, without its `#` marks. */
  source: string;
  /** The text GitHub shows: inline code without its backticks, a link as its text. */
  rendered: string;
  /** GitHub's anchor for it, numbered when an earlier heading of the file has the same one. */
  anchor: string;
}

/** A fence opens and closes a code block; a `#` line inside one is code, not a heading. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

const render = (source: string) =>
  source
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2');

/**
 * GitHub's slug: lower case; every character that is not a letter, a mark, a digit, a connector
 * (`_`), a space or a hyphen dropped; each space a hyphen. Runs of hyphens are kept as they are.
 */
export const slug = (rendered: string) =>
  rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

export function headingsOf(markdown: string): Heading[] {
  const headings: Heading[] = [];
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined;
      }
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    const source = ATX_HEADING.exec(line)?.[1];
    if (source === undefined) continue;
    const rendered = render(source);
    const base = slug(rendered);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    headings.push({ source, rendered, anchor: count === 0 ? base : `${base}-${count}` });
  }
  return headings;
}
