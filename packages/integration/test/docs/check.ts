/**
 * Whether each reference a file makes into docs/ and adr/ lands: the file exists, and so does
 * every heading it names, by its exact text or by GitHub's anchor. Kept apart from reading the
 * repository so the rules can be tried on text made up for the purpose.
 */
import { type Heading, headingsOf } from './headings.ts';
import { linksIn, referencesIn } from './references.ts';

/** A chapter's path: a markdown file under docs/ (in any folder of it) or adr/. */
const CHAPTER = /^(?:docs\/(?:[\w.-]+\/)*[\w.-]+\.md|adr\/[\w.-]+)$/;

/**
 * The markdown files references may land on, by their path from the repository root, and whether
 * any other path a link names exists (a link may name a program, a folder, a README).
 */
export class Chapters {
  readonly #headings = new Map<string, Heading[]>();
  readonly #exists: (path: string) => boolean;

  constructor(
    files: Iterable<[path: string, markdown: string]>,
    exists: (path: string) => boolean = () => false,
  ) {
    for (const [path, markdown] of files) this.#headings.set(path, headingsOf(markdown));
    this.#exists = exists;
  }

  /** Whether a path that is no chapter exists in the repository. */
  exists(path: string): boolean {
    return !path.startsWith('../') && this.#exists(path);
  }

  /** The chapter a target names: `adr/0002` is the one ADR whose file name starts `0002-`. */
  find(target: string): { path: string; headings: Heading[] } | undefined {
    const path = /^adr\/\d{4}$/.test(target)
      ? [...this.#headings.keys()].find((key) => key.startsWith(`${target}-`))
      : target;
    const headings = path === undefined ? undefined : this.#headings.get(path);
    return path === undefined || headings === undefined ? undefined : { path, headings };
  }
}

/** One line per reference in `text` that does not land, prefixed with `file:line`. */
export function problemsIn(file: string, text: string, chapters: Chapters): string[] {
  const problems: string[] = [];
  for (const reference of [...referencesIn(text), ...linksIn(file, text)]) {
    const where = `${file}:${reference.line}: ${reference.target}`;
    if (!CHAPTER.test(reference.target)) {
      // A link to a file that is no chapter: a program, a folder, a README. Only that it exists.
      if (!chapters.exists(reference.target)) problems.push(`${where}: no such file`);
      continue;
    }
    const chapter = chapters.find(reference.target);
    if (chapter === undefined) {
      problems.push(`${where}: no such file`);
      continue;
    }
    const { anchor, headings, unquoted } = reference;
    if (anchor !== undefined && !chapter.headings.some((heading) => heading.anchor === anchor)) {
      problems.push(`${where}#${anchor}: no heading of ${chapter.path} has this anchor`);
    }
    for (const name of headings) {
      const found = chapter.headings.some((heading) => heading.source === name || heading.rendered === name);
      if (!found) problems.push(`${where}, "${name}": no heading of ${chapter.path} reads so`);
    }
    if (unquoted !== undefined) {
      problems.push(`${where}, ${unquoted}: name the heading in quotes, with its exact text`);
    }
  }
  return problems;
}
