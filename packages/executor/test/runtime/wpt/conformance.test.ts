/**
 * The WPT data tables of vendor/wpt, run inside real isolates (harness.ts), with pass counts
 * printed per area and checked against expectations.json. The tables not run here:
 * fetch/data-urls/resources/data-urls.json belongs to fetch (data: URLs), and percent-encoding.json's
 * outputs for encodings other than UTF-8 need a document encoding, which the URL API never has.
 */
import { afterAll, expect, test } from 'vitest';
import { UNDECODED_ENCODINGS } from '../../../../runtime/src/encoding/encodings.ts';
import { useSandbox } from '../../helpers.ts';
import {
  type AreaOutcome,
  formatOutcome,
  judge,
  readExpectations,
  readWptJson,
  runTable,
} from './harness.ts';
import {
  ATOB,
  encodingLabelsRunner,
  IDNA,
  PERCENT_ENCODING,
  TOASCII,
  URL_CONSTRUCTOR,
  URL_ORIGIN,
  URL_SETTERS,
  URL_STATICS,
} from './runners.ts';

const sandbox = useSandbox();
const expectations = readExpectations();
const outcomes: AreaOutcome[] = [];

const urlTests = () => [
  ...(readWptJson('url/resources/urltestdata.json') as unknown[]),
  ...(readWptJson('url/resources/urltestdata-javascript-only.json') as unknown[]),
];

const AREAS: [area: string, runner: string, table: () => unknown][] = [
  ['url-constructor', URL_CONSTRUCTOR, urlTests],
  ['url-origin', URL_ORIGIN, urlTests],
  ['url-statics (project)', URL_STATICS, () => readWptJson('url/resources/urltestdata.json')],
  ['url-setters', URL_SETTERS, () => readWptJson('url/resources/setters_tests.json')],
  ['toascii', TOASCII, () => readWptJson('url/resources/toascii.json')],
  ['IdnaTestV2', IDNA, () => readWptJson('url/resources/IdnaTestV2.json')],
  ['IdnaTestV2-removed', IDNA, () => readWptJson('url/resources/IdnaTestV2-removed.json')],
  ['percent-encoding (utf-8)', PERCENT_ENCODING, () => readWptJson('url/resources/percent-encoding.json')],
  [
    'encoding-labels',
    encodingLabelsRunner(UNDECODED_ENCODINGS),
    () => readWptJson('whatwg-encoding/encodings.json'),
  ],
  ['atob (base64.json)', ATOB, () => readWptJson('fetch/data-urls/resources/base64.json')],
];

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
