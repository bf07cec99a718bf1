/**
 * scanMessage against JSON.parse: on generated JSON every count is exact, the envelope fields are
 * read as the parse reads them, the scan stops past its value limit, and on any text at all it
 * never throws and is linear (a text of any shape is read once).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { TooManyValuesError, tooManyValuesMessage } from './errors.ts';
import { VALUE_LIMIT } from './limits.ts';
import { scanMessage, valueCount } from './message-scan.ts';
import { decodeMessage, encodeMessage } from './validate.ts';

/** The counts a walk of the parsed value gives: what the scan must predict. */
function walk(value: unknown) {
  const counts = { objects: 0, arrays: 0, members: 0, strings: 0, numbers: 0, literals: 0 };
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      counts.arrays++;
      stack.push(...item);
    } else if (item !== null && typeof item === 'object') {
      counts.objects++;
      for (const [, member] of Object.entries(item)) {
        counts.members++;
        counts.strings++;
        stack.push(member);
      }
    } else if (typeof item === 'string') counts.strings++;
    else if (typeof item === 'number') counts.numbers++;
    else counts.literals++;
  }
  return counts;
}

/** JSON text as a peer might write it: any value, any spacing JSON allows, escapes spelled out. */
const jsonText = fc
  .tuple(fc.jsonValue(), fc.constantFrom(undefined, 1, '\t', ' \r\n'), fc.boolean())
  .map(([value, space, spelled]) => {
    const text = JSON.stringify(value, null, space);
    // Non-ASCII spelled as \u escapes: a quote or backslash then hides behind an escape as well.
    return spelled
      ? text.replace(/[^\x20-\x7e\s]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      : text;
  });

test('on generated JSON the counts are exactly those of the parsed value', () => {
  fc.assert(
    fc.property(jsonText, (text) => {
      const { type, id, complete, ...counts } = scanMessage(text);
      expect(counts).toStrictEqual(walk(JSON.parse(text)));
      expect(complete).toBe(true);
    }),
    { numRuns: 2000 },
  );
});

test('strings full of quotes, backslashes and brackets count as one string each', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: fc.constantFrom('"', '\\', '{', '[', ':', ',', 'a', '\u00e9') })),
      (parts) => {
        const text = JSON.stringify(parts);
        expect(scanMessage(text)).toMatchObject({ strings: parts.length, arrays: 1, objects: 0, members: 0 });
      },
    ),
  );
});

test('the envelope type and id are read as JSON.parse reads them, only from the top-level object', () => {
  fc.assert(
    fc.property(fc.string(), fc.string({ maxLength: 200 }), fc.jsonValue(), (type, id, request) => {
      const text = JSON.stringify({ request, type, nested: { id: 'not this one' }, id });
      expect(scanMessage(text)).toMatchObject({ type, id });
    }),
  );
  // The last of a duplicate key wins, as in the parse; a non-string value is no id at all.
  expect(scanMessage('{"id":"a","id":"b","type":"execute"}')).toMatchObject({ id: 'b', type: 'execute' });
  expect(scanMessage('{"id":"a","id":7}').id).toBeUndefined();
  expect(scanMessage('[{"id":"a"}]').id).toBeUndefined();
  expect(scanMessage('{"x":{"id":"a"}}').id).toBeUndefined();
  expect(scanMessage('{"id":"\\u0061\\"b"}').id).toBe('a"b');
});

test('any text at all: the scan never throws and a truncated text counts no more than it holds', () => {
  fc.assert(
    fc.property(jsonText, fc.nat(), fc.string(), (text, cut, junk) => {
      const whole = valueCount(scanMessage(text));
      const cutAt = cut % (text.length + 1);
      expect(valueCount(scanMessage(text.slice(0, cutAt)))).toBeLessThanOrEqual(whole + 1);
      scanMessage(junk + text.slice(0, cutAt));
    }),
    { numRuns: 1000 },
  );
});

test('past its value limit the scan stops and says so; at the limit it is complete', () => {
  const text = `[${'0,'.repeat(99)}0]`;
  expect(valueCount(scanMessage(text, 101))).toBe(101);
  expect(scanMessage(text, 101).complete).toBe(true);
  const stopped = scanMessage(text, 50);
  expect(stopped.complete).toBe(false);
  expect(valueCount(stopped)).toBe(51);
  // A key is not a value: objects of members sit exactly at the limit.
  expect(scanMessage('{"a":0,"b":0}', 3)).toMatchObject({ complete: true, members: 2 });
});

test('decodeMessage refuses a message past VALUE_LIMIT before parsing it, naming the bound and the id', () => {
  const text = `{"type":"execute","id":"flood","request":{"code":"async () => 1","modules":{"m":{"json":[${'{},'.repeat(VALUE_LIMIT)}{}]}}}}`;
  expect(decodeMessage(text)).toStrictEqual({
    ok: false,
    fault: { code: 'PAYLOAD_TOO_LARGE', message: tooManyValuesMessage('message', VALUE_LIMIT), id: 'flood' },
  });
  // The same values as one string are one value: the message decodes.
  const asText = `{"type":"cancel","id":"${'x'.repeat(100)}"}`;
  expect(decodeMessage(asText).ok).toBe(true);
});

test('encodeMessage refuses to send what a receiver would refuse', () => {
  const json = Array.from({ length: VALUE_LIMIT }, () => 0);
  const message = {
    type: 'execute',
    id: 'e',
    request: { code: 'async () => 1', modules: { m: { json } } },
  } as const;
  expect(() => encodeMessage(message)).toThrow(
    new TooManyValuesError('execute message', VALUE_LIMIT + 1, VALUE_LIMIT),
  );
  expect(() => encodeMessage(message)).toThrow(tooManyValuesMessage('execute message', VALUE_LIMIT));
  json.length = VALUE_LIMIT - 10;
  expect(decodeMessage(encodeMessage(message)).ok).toBe(true);
  // Three encodes and a decode of a million values: about a second quiet, over five on two cores
  // shared with the rest of the suite, where the default 5 s bound ended it.
}, 60_000);
