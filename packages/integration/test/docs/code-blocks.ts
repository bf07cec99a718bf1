/**
 * The code blocks of a user's pages (the docs index and the getting-started pages), read with what
 * their fence says about them, so a test can run each the way the page tells a reader to. The words
 * after a fence's language (GitHub shows only the language) say what the block is:
 *
 *   ```js file=first.mjs run     a file the reader saves, then runs: `node first.mjs`
 *   ```sh run                    commands the reader types in the app's folder
 *   ```sh serves                 a command that serves until stopped; it prints `serving on` once up
 *   ```json file=mcp.json        a file the reader saves, for the blocks after it
 *   ```text output               what the block run before it prints
 *   ```sh no-run                 not run: the test lists each such block, and why, by its first line
 */

export type BlockKind = 'run' | 'serves' | 'file' | 'output' | 'no-run';

export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  kind: BlockKind;
  /** The name the page gives the file (`file=NAME`), for `file` and `run` blocks. */
  file?: string;
  text: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;
const KINDS = new Set<string>(['run', 'serves', 'output', 'no-run']);

/** Every fenced block of `markdown`; a fence that says nothing of itself is refused, naming its line. */
export function codeBlocksOf(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const opening = FENCE.exec(lines[index] as string);
    if (opening === null) continue;
    const [, fence = '', info = ''] = opening;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end += 1) {
      const closing = FENCE.exec(lines[end] as string);
      if (closing !== null && closing[1]?.[0] === fence[0] && (closing[1]?.length ?? 0) >= fence.length)
        break;
      body.push(lines[end] as string);
    }
    const [language = '', ...words] = info.trim().split(/\s+/);
    const file = words.find((word) => word.startsWith('file='))?.slice('file='.length);
    const marks = words.filter((word) => KINDS.has(word));
    const kind = marks[0] ?? (file === undefined ? undefined : 'file');
    if (
      kind === undefined ||
      marks.length > 1 ||
      words.length !== marks.length + (file === undefined ? 0 : 1)
    ) {
      throw new Error(
        `line ${index + 1}: the fence says \`${info.trim()}\`; say what the block is: run, serves, output, no-run, or file=NAME (with run for a file the page runs)`,
      );
    }
    blocks.push({
      line: index + 1,
      language,
      kind: kind as BlockKind,
      ...(file === undefined ? {} : { file }),
      text: `${body.join('\n')}\n`,
    });
    index = end;
  }
  return blocks;
}
