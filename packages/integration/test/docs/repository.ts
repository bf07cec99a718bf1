/**
 * The repository's own text, as the reference check reads it: every file a maintainer writes
 * (sources, tests, tools, benchmarks, deployment files, READMEs, docs/ and adr/), and none that
 * is installed, built, generated, vendored or kept as history (a changelog, a pending changeset).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Folders by name, anywhere: installed, built or vendored. Dot folders are skipped as well. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage', 'vendor', 'generated']);
/** Folders by path from the root: measurements a benchmark run writes. */
const SKIPPED_PATHS = new Set(['bench/results']);
const SKIPPED_FILES = new Set(['CHANGELOG.md', 'pnpm-lock.yaml']);

/** Path from the root, with `/` on every platform. */
const fromRoot = (path: string) => relative(REPOSITORY_ROOT, path).split(sep).join('/');

function* walk(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name) && !SKIPPED_PATHS.has(fromRoot(path))) yield* walk(path);
    } else if (entry.isFile() && !SKIPPED_FILES.has(entry.name) && !entry.name.includes('.generated.')) {
      yield path;
    }
  }
}

/** Every text file the check reads, as [path from the root, text]; a file with a NUL byte is binary. */
export function* repositoryText(): Generator<[path: string, text: string]> {
  for (const path of walk(REPOSITORY_ROOT)) {
    const bytes = readFileSync(path);
    if (!bytes.includes(0)) yield [fromRoot(path), bytes.toString('utf8')];
  }
}

/** The chapters references land on: the markdown of docs/ (its folders too) and adr/, as [path from the root, markdown]. */
export function* chapterText(): Generator<[path: string, markdown: string]> {
  for (const folder of ['docs', 'adr']) {
    for (const path of walk(join(REPOSITORY_ROOT, folder))) {
      if (path.endsWith('.md')) yield [fromRoot(path), readFileSync(path, 'utf8')];
    }
  }
}

/** Whether a path from the root names a file or a folder of the repository. */
export function existsInRepository(path: string): boolean {
  return existsSync(join(REPOSITORY_ROOT, path));
}
