/**
 * Each area's runner: an ES module for the isolate exporting `run(table)`, which declares the
 * subtests the WPT test file that reads the table declares, with the same names and assertions
 * (the file each follows is named above it; the DOM-only parts of *.window.js files are left out).
 */

const IMPORTS = `import { test, assert_equals, assert_true, assert_throws_js, assert_throws_dom, format_value } from 'harness';\n`;

/** url/url-constructor.any.js, over urltestdata.json and urltestdata-javascript-only.json. */
export const URL_CONSTRUCTOR = `${IMPORTS}
export function run(tests) {
  for (const expected of tests) {
    if (typeof expected === 'string') continue;
    const base = expected.base !== null ? expected.base : undefined;
    const getURL = () => new URL(expected.input, base);
    const name = 'Parsing: <' + expected.input + '> ' + (base ? 'against <' + base + '>' : 'without base');
    if (expected.failure) {
      test(() => assert_throws_js(TypeError, () => getURL().href), name);
      continue;
    }
    test(() => {
      const url = getURL();
      assert_equals(url.href, expected.href, 'href');
      assert_equals(url.protocol, expected.protocol, 'protocol');
      assert_equals(url.username, expected.username, 'username');
      assert_equals(url.password, expected.password, 'password');
      assert_equals(url.host, expected.host, 'host');
      assert_equals(url.hostname, expected.hostname, 'hostname');
      assert_equals(url.port, expected.port, 'port');
      assert_equals(url.pathname, expected.pathname, 'pathname');
      assert_equals(url.search, expected.search, 'search');
      if ('searchParams' in expected) {
        assert_true('searchParams' in url);
        assert_equals(url.searchParams.toString(), expected.searchParams, 'searchParams');
      }
      assert_equals(url.hash, expected.hash, 'hash');
    }, name);
  }
}
`;

/** url/url-origin.any.js, over urltestdata.json and urltestdata-javascript-only.json. */
export const URL_ORIGIN = `${IMPORTS}
export function run(tests) {
  for (const expected of tests) {
    if (typeof expected === 'string' || !('origin' in expected)) continue;
    const base = expected.base !== null ? expected.base : undefined;
    test(() => {
      const url = new URL(expected.input, base);
      assert_equals(url.origin, expected.origin, 'origin');
    }, 'Origin parsing: <' + expected.input + '> ' + (base ? 'against <' + base + '>' : 'without base'));
  }
}
`;

/**
 * Not a WPT file (url-statics-parse/canparse.any.js use tables of their own, inline): URL.parse and
 * URL.canParse over urltestdata.json, which must agree with the constructor.
 */
export const URL_STATICS = `${IMPORTS}
export function run(tests) {
  for (const expected of tests) {
    if (typeof expected === 'string') continue;
    const base = expected.base !== null ? expected.base : undefined;
    const name = '<' + expected.input + '> ' + (base ? 'against <' + base + '>' : 'without base');
    test(() => {
      assert_equals(URL.canParse(expected.input, base), !expected.failure, 'canParse');
      const parsed = URL.parse(expected.input, base);
      if (expected.failure) assert_equals(parsed, null, 'parse');
      else assert_equals(parsed.href, expected.href, 'parse');
    }, 'URL.parse and URL.canParse: ' + name);
  }
}
`;

/** url/url-setters.any.js, over setters_tests.json. */
export const URL_SETTERS = `${IMPORTS}
export function run(all) {
  for (const attribute in all) {
    if (attribute === 'comment') continue;
    for (const testCase of all[attribute]) {
      let name = 'Setting <' + testCase.href + '>.' + attribute + " = '" + testCase.new_value + "'";
      if ('comment' in testCase) name += ' ' + testCase.comment;
      test(() => {
        const url = new URL(testCase.href);
        url[attribute] = testCase.new_value;
        for (const expected in testCase.expected) {
          assert_equals(url[expected], testCase.expected[expected], expected);
        }
      }, 'URL: ' + name);
    }
  }
}
`;

/** url/toascii.any.js, over toascii.json. */
export const TOASCII = `${IMPORTS}
const makeURL = (input) => new URL('https://' + input + '/x');
export function run(tests) {
  for (const hostTest of tests) {
    if (typeof hostTest === 'string') continue;
    test(() => {
      if (hostTest.output !== null) {
        const url = makeURL(hostTest.input);
        assert_equals(url.host, hostTest.output, 'host');
        assert_equals(url.hostname, hostTest.output, 'hostname');
        assert_equals(url.pathname, '/x', 'pathname');
        assert_equals(url.href, 'https://' + hostTest.output + '/x', 'href');
      } else {
        assert_throws_js(TypeError, () => makeURL(hostTest.input));
      }
    }, hostTest.input + ' (using URL)');
    for (const attribute of ['host', 'hostname']) {
      test(() => {
        const url = makeURL('x');
        url[attribute] = hostTest.input;
        assert_equals(url[attribute], hostTest.output !== null ? hostTest.output : 'x', attribute);
      }, hostTest.input + ' (using URL.' + attribute + ')');
    }
  }
}
`;

/**
 * url/IdnaTestV2.window.js (its URL part), over IdnaTestV2.json and IdnaTestV2-removed.json: the
 * input's host-ending code points are percent-encoded so that they reach the host parser.
 */
export const IDNA = `${IMPORTS}
function encodeHostEndingCodePoints(input) {
  let output = '';
  for (const codePoint of input) {
    output += [':', '/', '?', '#', '\\\\'].includes(codePoint) ? encodeURIComponent(codePoint) : codePoint;
  }
  return output;
}
export function run(tests) {
  for (const idnaTest of tests) {
    if (typeof idnaTest === 'string' || idnaTest.input === '') continue;
    const encodedInput = encodeHostEndingCodePoints(idnaTest.input);
    test(() => {
      if (idnaTest.output === null) {
        assert_throws_js(TypeError, () => new URL('https://' + encodedInput + '/x'));
      } else {
        const url = new URL('https://' + encodedInput + '/x');
        assert_equals(url.host, idnaTest.output, 'host');
        assert_equals(url.hostname, idnaTest.output, 'hostname');
        assert_equals(url.pathname, '/x', 'pathname');
        assert_equals(url.href, 'https://' + idnaTest.output + '/x', 'href');
      }
    }, 'ToASCII("' + idnaTest.input + '")' + (idnaTest.comment ? ' ' + idnaTest.comment : ''));
  }
}
`;

/**
 * url/percent-encoding.window.js, for its UTF-8 outputs: the query and the fragment of a URL the
 * API parses (always as UTF-8). The other encodings need a document's encoding.
 */
export const PERCENT_ENCODING = `${IMPORTS}
export function run(tests) {
  for (const testUnit of tests) {
    if (typeof testUnit === 'string') continue;
    test(() => {
      const url = new URL('https://doesnotmatter.invalid/?' + testUnit.input + '#' + testUnit.input);
      assert_equals(url.hash, '#' + testUnit.output['utf-8'], 'fragment');
      assert_equals(url.search, '?' + testUnit.output['utf-8'], 'query');
    }, 'Input ' + testUnit.input + ' with encoding utf-8');
  }
}
`;

/**
 * encoding/textdecoder-labels.any.js and encoding/api-replacement-encodings.any.js, over the
 * standard's encodings.json (which WPT copies into encoding/resources/encodings.js). Issue 4's
 * rule for an encoding the runtime does not decode: its every label makes the constructor throw a
 * RangeError; UNDECODED names those encodings.
 */
export function encodingLabelsRunner(undecoded: readonly string[]): string {
  return `${IMPORTS}
const UNDECODED = ${JSON.stringify(undecoded)};
const whitespace = [' ', '\\t', '\\n', '\\f', '\\r'];
function variants(label) {
  const all = [label, label.toUpperCase()];
  for (const ws of whitespace) all.push(ws + label, label + ws, ws + label + ws);
  return all;
}
export function run(sections) {
  for (const section of sections) {
    for (const encoding of section.encodings) {
      const name = encoding.name.toLowerCase();
      for (const label of encoding.labels) {
        if (name === 'replacement') {
          test(() => {
            assert_throws_js(RangeError, () => new TextDecoder(label));
          }, 'Label for "replacement" should be rejected by API: ' + label);
          continue;
        }
        if (UNDECODED.includes(name)) {
          test(() => {
            for (const variant of variants(label)) assert_throws_js(RangeError, () => new TextDecoder(variant), variant);
          }, label + ' => ' + encoding.name + ' (not decoded here: RangeError)');
          continue;
        }
        test(() => {
          assert_equals(new TextDecoder(label).encoding, name, 'label for encoding should match');
          assert_equals(new TextDecoder(label.toUpperCase()).encoding, name, 'label matching should be case-insensitive');
          for (const ws of whitespace) {
            assert_equals(new TextDecoder(ws + label).encoding, name, 'label for encoding with leading whitespace should match');
            assert_equals(new TextDecoder(label + ws).encoding, name, 'label for encoding with trailing whitespace should match');
            assert_equals(new TextDecoder(ws + label + ws).encoding, name, 'label for encoding with surrounding whitespace should match');
          }
        }, label + ' => ' + encoding.name);
      }
    }
  }
}
`;
}

/** html/webappapis/atob/base64.any.js, over fetch/data-urls/resources/base64.json and its IDL cases. */
export const ATOB = `${IMPORTS}
const idlTests = [
  [undefined, null],
  [null, [158, 233, 101]],
  [7, null],
  [12, [215]],
  [1.5, null],
  [true, [182, 187]],
  [false, null],
  [NaN, [53, 163]],
  [+Infinity, [34, 119, 226, 158, 43, 114]],
  [-Infinity, null],
  [0, null],
  [-0, null],
  [{ toString: function () { return 'foo'; } }, [126, 138]],
  [{ toString: function () { return 'abcd'; } }, [105, 183, 29]],
];
export function run(tests) {
  const allTests = tests.concat(idlTests);
  for (const [input, output] of allTests) {
    test(() => {
      if (output === null) {
        assert_throws_dom('InvalidCharacterError', () => globalThis.atob(input));
      } else {
        const result = globalThis.atob(input);
        for (let index = 0; index < output.length; index++) {
          assert_equals(result.charCodeAt(index), output[index]);
        }
      }
    }, 'atob(' + format_value(input) + ')');
  }
}
`;
