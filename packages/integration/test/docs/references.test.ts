/**
 * Every reference the repository's code and docs make into docs/ and adr/ lands: the file it
 * names exists, and so does each heading it names (docs/sandbox.md, "Error kinds, names and
 * positions"; docs/pool.md#fair-queues). A heading renamed, a chapter split or a file moved
 * fails here, with the line of every reference it left pointing nowhere.
 */
import { expect, test } from 'vitest';
import { Chapters, problemsIn } from './check.ts';
import { referencesIn } from './references.ts';
import { chapterText, existsInRepository, repositoryText } from './repository.ts';

const chapters = new Chapters(chapterText(), existsInRepository);
const files = [...repositoryText()];

test('every reference into docs/ and adr/ names a file and headings that exist', () => {
  const problems = files.flatMap(([path, text]) => problemsIn(path, text, chapters));
  expect(problems).toStrictEqual([]);
});

test('the check reads references from every place the code and the docs make them', () => {
  // A walk that stopped finding files, or a pattern that stopped matching, would pass the test
  // above with nothing checked.
  const places = ['README.md', 'docs/', 'adr/', 'bench/', 'tools/', 'deploy/'].concat(
    ['compat', 'executor', 'mcp', 'protocol', 'runtime', 'server'].map((name) => `packages/${name}/src/`),
  );
  const referring = new Set(files.filter(([, text]) => referencesIn(text).length > 0).map(([path]) => path));
  const silent = places.filter((place) => ![...referring].some((path) => path.startsWith(place)));
  expect(silent).toStrictEqual([]);
  const named = files
    .flatMap(([, text]) => referencesIn(text))
    .filter((reference) => reference.headings.length > 0);
  expect(named.length).toBeGreaterThan(100);
});
