/**
 * The references a file makes into docs/ and adr/, read the way the project spells them:
 *
 *   docs/<chapter>.md                          the chapter
 *   docs/<chapter>.md, "<heading>"             a heading, by its text (also without the comma, in
 *   docs/<chapter>.md ("<heading>", "<heading>")  parentheses, after `'s`, or several at once)
 *   docs/<chapter>.md#<anchor>                 a heading, by GitHub's anchor (also inside a URL)
 *   adr/<number>, "<heading>"                  an ADR by its number, or by its file name
 *   docs/start/<page>.md                       a chapter in a folder of docs/
 *
 * A comment or a paragraph may wrap a reference over lines, so lines are joined first, each
 * without the comment marker (`*`, `//`, `#`) that opens it. A heading named without quotes (the
 * path, a comma, then a capitalised name) is returned as such, for the check to refuse: nothing
 * could tell where its name ends.
 *
 * A markdown file's own links (`[the pool](pool.md#fair-queues)`, `[examples](../examples)`) are
 * read by `linksIn`, resolved against the file's folder as GitHub resolves them.
 */
import { posix } from 'node:path';

export interface Reference {
  /** 1-based line of the file where the reference starts. */
  line: number;
  /** `docs/<name>.md`, `adr/<number>` or `adr/<file name>.md`. */
  target: string;
  /** The anchor after `#`, when there is one. */
  anchor?: string;
  /** Headings named by their text, in quotes. */
  headings: string[];
  /** What follows `, ` when it reads as a heading named without quotes. */
  unquoted?: string;
}

const COMMENT_MARKER = /^\s*(?:\*(?!\/)|\/\/+|#+(?=\s|$))?\s*/;
const REFERENCE =
  /(?<![\w.-])(?:\.\.\/)*(docs\/(?:[\w.-]+\/)*[\w.-]+\.md|adr\/\d{4}(?:-[\w.-]+\.md)?)(?![\w.-])(?:#([\p{L}\p{N}_-]+))?/gu;
/** What may sit between the path and a quoted heading: the end of a markdown link, `'s`, a comma, `(`. */
const NAMED = /^[`\])]*(?:'s)?(?:,\s*|\s+)\(?("[^"]+"(?:(?:,\s*|\s+and\s+)"[^"]+")*)/;
const UNQUOTED = /^[`\])]*,\s+([A-Z][\w' -]*)/;

export function referencesIn(text: string): Reference[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  let joined = '';
  for (const line of lines) {
    starts.push(joined.length);
    joined += `${line.replace(COMMENT_MARKER, '')} `;
  }
  const lineAt = (offset: number) => {
    let line = 0;
    while (line + 1 < starts.length && (starts[line + 1] ?? Infinity) <= offset) line += 1;
    return line + 1;
  };
  const references: Reference[] = [];
  for (const match of joined.matchAll(REFERENCE)) {
    const [whole, target = '', anchor] = match;
    const rest = joined.slice(match.index + whole.length);
    const named = NAMED.exec(rest)?.[1];
    const headings =
      named === undefined ? [] : [...named.matchAll(/"([^"]+)"/g)].map((quoted) => quoted[1] ?? '');
    const unquoted = named === undefined ? UNQUOTED.exec(rest)?.[1]?.trim() : undefined;
    references.push({
      line: lineAt(match.index),
      target,
      ...(anchor === undefined ? {} : { anchor }),
      headings,
      ...(unquoted === undefined ? {} : { unquoted }),
    });
  }
  return references;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A markdown link's target: `](path)`, `](path#anchor)` or `](#anchor)`, without a title. */
const LINK = /\]\(([^()\s]*)\)/g;
/** Targets `referencesIn` reads already (a path from the root, after any `../`), and URLs. */
const READ_ELSEWHERE = /^(?:(?:\.\.\/)*(?:docs|adr)\/|[a-z][a-z\d+.-]*:)/i;

/**
 * The relative links of the markdown file at `file` (a path from the root), each resolved against
 * the file's folder: `start/cli.md` in docs/README.md is `docs/start/cli.md`, and `#install` is the
 * file itself. A link that leaves the repository keeps its leading `../`, for the check to refuse.
 */
export function linksIn(file: string, text: string): Reference[] {
  if (!file.endsWith('.md')) return [];
  const references: Reference[] = [];
  let fence: string | undefined;
  for (const [index, line] of text.split('\n').entries()) {
    // Code is not prose: `tools[name](...args)` in a block or a code span is no link.
    const marker = FENCE.exec(line)?.[1];
    if (
      marker !== undefined &&
      (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))
    ) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const [, link = ''] of line.replace(/`[^`]*`/g, '').matchAll(LINK)) {
      if (link === '' || READ_ELSEWHERE.test(link)) continue;
      const hash = link.indexOf('#');
      const path = hash === -1 ? link : link.slice(0, hash);
      const anchor = hash === -1 ? undefined : link.slice(hash + 1);
      const target = path === '' ? file : posix.normalize(posix.join(posix.dirname(file), path));
      references.push({
        line: index + 1,
        target: target.replace(/\/$/, ''),
        ...(anchor === undefined ? {} : { anchor }),
        headings: [],
      });
    }
  }
  return references;
}
