/**
 * Usage: node lint/check-primordials.ts (the runtime package's lint script runs it)
 *
 * Checks the runtime's sources against the hardening rule (primordials-rule.ts): prints each place
 * that reaches a built-in a program can replace and fails when there is one; lists the exemptions.
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPrimordials } from './primordials-rule.ts';

const runtimeRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

const report = checkPrimordials({
  project: join(runtimeRoot, 'tsconfig.build.json'),
  snapshotEntry: join(runtimeRoot, 'src/index.ts'),
  // primordials.ts is where the captures are made; generated files are another build's output.
  skip: (fileName) => fileName.endsWith('/src/primordials.ts') || fileName.includes('/generated/'),
});
const where = (file: string, line: number) => `${relative(runtimeRoot, file)}:${line}`;
for (const { file, line, column, message } of report.findings)
  console.error(`${where(file, line)}:${column} ${message}`);
if (process.argv.includes('--exemptions'))
  for (const { file, line, reason } of report.exemptions)
    console.log(`${where(file, line)} exempt: ${reason}`);
console.log(
  `primordials: ${report.findings.length} finding(s), ${report.exemptions.length} exemption(s) in the runtime's sources.`,
);
if (report.findings.length > 0) process.exitCode = 1;
