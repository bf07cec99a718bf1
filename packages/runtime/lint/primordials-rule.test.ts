/**
 * The hardening rule (primordials-rule.ts) against a small runtime of its own (fixtures/): it
 * refuses every line marked `// refused` there, and nothing else; it lets the top level of a module
 * the snapshot evaluates use built-ins, and not a piece's; exemptions excuse, and must say why.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { checkPrimordials, type PrimordialsReport } from './primordials-rule.ts';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

const report: PrimordialsReport = checkPrimordials({
  project: join(fixtures, 'tsconfig.json'),
  snapshotEntry: join(fixtures, 'entry.ts'),
  skip: (fileName) => basename(fileName) === 'primordials.ts',
});

/** `file:line` of each line of the fixtures that ends in `// refused`. */
function markedRefused(): string[] {
  const marked: string[] = [];
  for (const file of readdirSync(fixtures).filter((name) => name.endsWith('.ts'))) {
    readFileSync(join(fixtures, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (line.trimEnd().endsWith('// refused')) marked.push(`${file}:${index + 1}`);
      });
  }
  return marked.sort();
}

const found = (file?: string) =>
  report.findings
    .filter((finding) => file === undefined || basename(finding.file) === file)
    .map((finding) => `${basename(finding.file)}:${finding.line}`);

test('refuses each planted call, iteration and iterating argument, and nothing else', () => {
  const unexplained = 'exemptions.ts:10';
  expect([...new Set(found())].sort()).toStrictEqual([...markedRefused(), unexplained].sort());
});

test('names the capture to call instead', () => {
  const push = report.findings.find((finding) => finding.message.startsWith('`push`'));
  expect(push?.message).toContain("Array's push");
  expect(push?.message).toContain('ArrayPrototypePush');
  const call = report.findings.find((finding) => finding.message.startsWith('`call`'));
  expect(call?.message).toContain('ReflectApply');
  expect(report.findings.some((finding) => finding.message.startsWith('Iterating a built-in String'))).toBe(
    true,
  );
});

test('an exemption excuses the line it names, must say why, and must excuse something', () => {
  expect(report.exemptions.map(({ line, reason }) => [line, reason])).toStrictEqual([
    [4, "the fixture's justified case, a list no program can reach."],
    [6, 'the same, written at the end of the line.'],
  ]);
  const messages = report.findings
    .filter((finding) => basename(finding.file) === 'exemptions.ts')
    .map(({ line, message }) => [line, message]);
  expect(messages).toStrictEqual([
    [10, 'A primordials-exempt says why.'],
    [14, 'This primordials-exempt excuses nothing.'],
  ]);
});
