/**
 * The reference check's own rules, on chapters and text made up here: every spelling the project
 * uses lands when it should, and each way a reference can miss is reported on its line. The paths
 * are built from variables so that the repository-wide check never reads these made-up ones.
 */
import { expect, test } from 'vitest';
import { Chapters, problemsIn } from './check.ts';
import { headingsOf } from './headings.ts';

const D = 'docs';
const A = 'adr';
const POOL = [
  '# The pool',
  '## Fair queues',
  '### Memory',
  '## Crypto: `crypto` and `CryptoKey`',
  '```sh',
  '# a shell comment, not a heading',
  '```',
  '## Memory',
  '## Closing hashes are not part of the text ##',
].join('\n\n');
const chapters = new Chapters([
  [`${D}/pool.md`, POOL],
  [`${A}/0002-floor.md`, '# 0002. The floor\n\n### Engines supported and tested\n'],
]);

test('headings are read as GitHub renders them, numbered anchors and code blocks included', () => {
  expect(headingsOf(POOL).map(({ rendered, anchor }) => [rendered, anchor])).toStrictEqual([
    ['The pool', 'the-pool'],
    ['Fair queues', 'fair-queues'],
    ['Memory', 'memory'],
    ['Crypto: crypto and CryptoKey', 'crypto-crypto-and-cryptokey'],
    ['Memory', 'memory-1'],
    ['Closing hashes are not part of the text', 'closing-hashes-are-not-part-of-the-text'],
  ]);
});

test('every spelling the project uses lands', () => {
  const text = [
    `the chapter: ${D}/pool.md.`,
    `a heading: (${D}/pool.md, "Fair queues"); without the comma: ${D}/pool.md "Memory".`,
    `several: ${D}/pool.md ("Fair queues", "Memory"); possessive: ${D}/pool.md's "Memory".`,
    `rendered or as written: ${D}/pool.md, "Crypto: crypto and CryptoKey", and`,
    `${D}/pool.md, "Crypto: \`crypto\` and \`CryptoKey\`".`,
    `a link: [the pool](\`${D}/pool.md\`), "Memory"; [memory](../../${D}/pool.md#memory-1);`,
    `a URL: https://github.com/owner/repo/blob/main/${D}/pool.md#fair-queues.`,
    `an ADR: ${A}/0002, "Engines supported and tested"; ${A}/0002-floor.md.`,
    ` * wrapped in a comment (${D}/pool.md, "Fair`,
    ` * queues"), and // in a line comment ${D}/pool.md,`,
    `    // "Memory".`,
  ].join('\n');
  expect(problemsIn('made-up.ts', text, chapters)).toStrictEqual([]);
});

test('each way a reference misses is reported on its line', () => {
  const text = [
    `a chapter that is not there: ${D}/gone.md`,
    `a heading that is not there: ${D}/pool.md, "Fair queue"`,
    `a heading by part of its text: ${D}/pool.md, "Crypto"`,
    `the second of two: ${D}/pool.md ("Memory", "Nope")`,
    `an anchor that is not there: ${D}/pool.md#fair-queue`,
    `an ADR that was never written: ${A}/0009`,
    `a heading without quotes: (${D}/pool.md, Memory)`,
    ` * a heading wrapped onto the next line (${D}/pool.md,`,
    ` * "Fair queue").`,
  ].join('\n');
  expect(problemsIn('made-up.ts', text, chapters)).toStrictEqual([
    `made-up.ts:1: ${D}/gone.md: no such file`,
    `made-up.ts:2: ${D}/pool.md, "Fair queue": no heading of ${D}/pool.md reads so`,
    `made-up.ts:3: ${D}/pool.md, "Crypto": no heading of ${D}/pool.md reads so`,
    `made-up.ts:4: ${D}/pool.md, "Nope": no heading of ${D}/pool.md reads so`,
    `made-up.ts:5: ${D}/pool.md#fair-queue: no heading of ${D}/pool.md has this anchor`,
    `made-up.ts:6: ${A}/0009: no such file`,
    `made-up.ts:7: ${D}/pool.md, Memory: name the heading in quotes, with its exact text`,
    `made-up.ts:8: ${D}/pool.md, "Fair queue": no heading of ${D}/pool.md reads so`,
  ]);
});

test("a markdown file's own links are resolved against its folder, and code is no link", () => {
  const nested = new Chapters(
    [
      [`${D}/pool.md`, POOL],
      [`${D}/start/cli.md`, '# The command line\n\n## Install\n'],
      [`${D}/README.md`, '# Index\n'],
    ],
    (path) => ['examples', 'examples/agent-loop.mjs'].includes(path),
  );
  const page = [
    '[the index](../README.md), [pool](../pool.md#fair-queues), [here](#install), [cli](cli.md)',
    '[examples](../../examples/), [a program](../../examples/agent-loop.mjs), [a URL](https://example.com/x.md)',
    `a path from the root: ${D}/start/cli.md, "Install"`,
    '`tools[name](...args)` in a code span, and in a block:',
    '```js',
    'fns[tool](...args);',
    '```',
  ].join('\n');
  expect(problemsIn(`${D}/start/cli.md`, page, nested)).toStrictEqual([]);
  const broken = [
    '[gone](gone.md), [pool](../pool.md#fair-queue), [here](#installing)',
    '[a program](../../examples/gone.mjs), [outside](../../../elsewhere.md)',
  ].join('\n');
  expect(problemsIn(`${D}/start/cli.md`, broken, nested)).toStrictEqual([
    `${D}/start/cli.md:1: ${D}/start/gone.md: no such file`,
    `${D}/start/cli.md:1: ${D}/pool.md#fair-queue: no heading of ${D}/pool.md has this anchor`,
    `${D}/start/cli.md:1: ${D}/start/cli.md#installing: no heading of ${D}/start/cli.md has this anchor`,
    `${D}/start/cli.md:2: examples/gone.mjs: no such file`,
    `${D}/start/cli.md:2: ../elsewhere.md: no such file`,
  ]);
});
