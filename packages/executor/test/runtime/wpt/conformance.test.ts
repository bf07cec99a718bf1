/**
 * The WPT data tables of vendor/wpt (areas.ts), run inside real isolates (harness.ts), with pass
 * counts printed per area and checked against expectations.json.
 */
import { afterAll, expect, test } from 'vitest';
import { useSandbox } from '../../helpers.ts';
import { AREAS } from './areas.ts';
import { type AreaOutcome, formatOutcome, judge, readExpectations, runTable } from './harness.ts';

const sandbox = useSandbox();
const expectations = readExpectations();
const outcomes: AreaOutcome[] = [];

test('every area has an entry in expectations.json, and every entry an area', () => {
  expect(Object.keys(expectations).sort()).toStrictEqual(AREAS.map(([area]) => area).sort());
});

for (const [area, runner, table] of AREAS) {
  test(`WPT ${area}`, async () => {
    const outcome = judge(area, await runTable(sandbox, runner, table()), expectations);
    outcomes.push(outcome);
    expect(outcome.total).toBeGreaterThan(0);
    expect(outcome.problems).toStrictEqual([]);
  });
}

afterAll(() => {
  const lines = outcomes.map(formatOutcome);
  console.log(`WPT data tables, in isolates:\n  ${lines.join('\n  ')}`);
});
