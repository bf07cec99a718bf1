/**
 * Runs web-platform-tests data tables (vendor/wpt at the repository's root) inside a real isolate:
 * the table crosses as a JSON module, an area's runner module (runners.ts) turns each entry into
 * WPT's own subtests with WPT's names, and a small testharness subset (HARNESS_SOURCE) records
 * every result. One execution runs a whole table, so the suite stays fast.
 *
 * expectations.json lists, per area, the subtests that cannot pass, each with its reason. A run
 * fails on a failure the file does not list, on a listed subtest that passes or no longer exists,
 * and when an area lists more than 2% of its subtests.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../../../src/sandbox/sandbox.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** The vendored WPT data (vendor/wpt/README.md says where each file came from). */
export const WPT_ROOT = join(here, '..', '..', '..', '..', '..', 'vendor', 'wpt');

export function readWptJson(path: string): unknown {
  return JSON.parse(readFileSync(join(WPT_ROOT, path), 'utf8'));
}

/**
 * The part of testharness.js the table tests use, as an ES module for the isolate. Assertions
 * follow testharness.js: assert_equals compares with SameValue except that +0 and -0 differ,
 * assert_throws_js checks the error's constructor, assert_throws_dom its DOMException name.
 */
export const HARNESS_SOURCE = `
const results = [];
export function test(fn, name) {
  try {
    fn();
    results.push([name, null]);
  } catch (error) {
    results.push([name, String(error && error.message !== undefined ? error.message : error)]);
  }
}
export function format_value(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Object.is(value, -0)) return '-0';
  return String(value);
}
export function assert_equals(actual, expected, description = '') {
  if (!Object.is(actual, expected)) {
    throw new Error(description + ': expected ' + format_value(expected) + ' but got ' + format_value(actual));
  }
}
export function assert_true(actual, description = '') {
  if (actual !== true) throw new Error(description + ': expected true but got ' + format_value(actual));
}
export function assert_throws_js(constructor, fn, description = '') {
  try {
    fn();
  } catch (error) {
    if (typeof error !== 'object' || error === null || error.constructor !== constructor || error.name !== constructor.name) {
      throw new Error(description + ': expected a ' + constructor.name + ' but got ' + String(error));
    }
    return;
  }
  throw new Error(description + ': expected a ' + constructor.name + ' but nothing was thrown');
}
export function assert_throws_dom(name, fn, description = '') {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof DOMException) || error.name !== name) {
      throw new Error(description + ': expected DOMException ' + name + ' but got ' + String(error));
    }
    return;
  }
  throw new Error(description + ': expected DOMException ' + name + ' but nothing was thrown');
}
export function results_() {
  return results;
}
`;

/** [subtest name, failure message or null for a pass], in the order the subtests ran. */
export type SubtestResult = [name: string, failure: string | null];

/**
 * Runs `runner` (an ES module exporting `run(table)`, importing the harness from 'harness') over
 * `table` in one execution.
 */
export async function runTable(sandbox: Sandbox, runner: string, table: unknown): Promise<SubtestResult[]> {
  const envelope = await sandbox.execute({
    code: `import table from 'table'; import { run } from 'runner'; import { results_ } from 'harness';
async () => { run(table); return results_(); }`,
    modules: { table: { json: table }, runner, harness: HARNESS_SOURCE },
    timeout: 120_000,
  });
  if (envelope.error !== undefined) throw new Error(`The table run failed: ${envelope.error}`);
  return envelope.result as SubtestResult[];
}

export interface AreaOutcome {
  area: string;
  total: number;
  passed: number;
  expectedFailures: number;
  /** Problems that fail the run: unlisted failures, listed passes, stale entries, too many entries. */
  problems: string[];
}

type Expectations = Record<string, Record<string, string>>;

export function readExpectations(): Expectations {
  return JSON.parse(readFileSync(join(here, 'expectations.json'), 'utf8')) as Expectations;
}

/** Checks an area's results against its expectations. */
export function judge(area: string, results: SubtestResult[], expectations: Expectations): AreaOutcome {
  const listed = expectations[area] ?? {};
  const problems: string[] = [];
  const seen = new Set<string>();
  let passed = 0;
  for (const [name, failure] of results) {
    seen.add(name);
    const reason = listed[name];
    if (failure === null) {
      passed++;
      if (reason !== undefined) problems.push(`listed as failing but passes: ${name}`);
    } else if (reason === undefined) {
      problems.push(`fails: ${name}: ${failure}`);
    }
  }
  const names = Object.keys(listed);
  for (const name of names) if (!seen.has(name)) problems.push(`listed but not run: ${name}`);
  if (names.length > results.length * 0.02) {
    problems.push(`${names.length} listed failures exceed 2% of ${results.length} subtests`);
  }
  return { area, total: results.length, passed, expectedFailures: names.length, problems };
}

export function formatOutcome(outcome: AreaOutcome): string {
  const listed =
    outcome.expectedFailures > 0 ? ` (${outcome.expectedFailures} expected failures listed)` : '';
  return `${outcome.area}: ${outcome.passed}/${outcome.total} passed${listed}`;
}
