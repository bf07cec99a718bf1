/**
 * The WPT data tables of vendor/wpt that the isolates run, each with the runner (runners.ts) that
 * turns its entries into WPT's subtests: conformance.test.ts judges them against expectations.json,
 * and ../prototype-traps.test.ts runs them again with the built-in prototypes replaced by traps. The
 * tables not run here: fetch/data-urls/resources/data-urls.json belongs to fetch (data: URLs), and
 * percent-encoding.json's outputs for encodings other than UTF-8 need a document encoding, which the
 * URL API never has.
 */
import { UNDECODED_ENCODINGS } from '../../../../runtime/src/encoding/encodings.ts';
import { readWptJson } from './harness.ts';
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

const urlTests = () => [
  ...(readWptJson('url/resources/urltestdata.json') as unknown[]),
  ...(readWptJson('url/resources/urltestdata-javascript-only.json') as unknown[]),
];

export const AREAS: [area: string, runner: string, table: () => unknown][] = [
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
