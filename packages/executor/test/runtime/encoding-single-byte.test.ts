/**
 * Every legacy single-byte encoding, decoded byte by byte inside the isolate, against the index
 * tables @exodus/bytes ships (the package whatwg-url depends on, which claims the standard's
 * indexes and WPT's encoding tests): runtime/src/encoding/single-byte-indexes.ts was taken from
 * them, and this keeps the two equal.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

const SINGLE_BYTE = [
  'ibm866',
  'iso-8859-2',
  'iso-8859-3',
  'iso-8859-4',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'iso-8859-8-i',
  'iso-8859-10',
  'iso-8859-13',
  'iso-8859-14',
  'iso-8859-15',
  'iso-8859-16',
  'koi8-r',
  'koi8-u',
  'macintosh',
  'windows-874',
  'windows-1250',
  'windows-1251',
  'windows-1252',
  'windows-1253',
  'windows-1254',
  'windows-1255',
  'windows-1256',
  'windows-1257',
  'windows-1258',
  'x-mac-cyrillic',
];

/** @exodus/bytes's getEncoding: the code points of bytes 0x80 onwards (missing ones: Latin-1's). */
async function exodusIndex(): Promise<(encoding: string) => number[]> {
  const fromRuntime = createRequire(join(import.meta.dirname, '../../../runtime/package.json'));
  const fromWhatwgUrl = createRequire(fromRuntime.resolve('whatwg-url/package.json'));
  const exodus = dirname(fromWhatwgUrl.resolve('@exodus/bytes/single-byte.js'));
  const path = pathToFileURL(join(exodus, 'fallback', 'single-byte.js')).href;
  const module = (await import(path)) as { getEncoding: (encoding: string) => number[] };
  return module.getEncoding;
}

test('the 28 legacy single-byte encodings decode every byte as the standard indexes say', async () => {
  const getEncoding = await exodusIndex();
  const envelope = await sandbox.execute({
    code: `async () => {
      const bytes = new Uint8Array(256).map((_, i) => i);
      const out = {};
      for (const name of ${JSON.stringify(SINGLE_BYTE)}) {
        const decoded = new TextDecoder(name).decode(bytes);
        out[name] = Array.from(decoded, (c) => c.codePointAt(0));
        let fatal = 0;
        for (let byte = 0x80; byte < 0x100; byte++) {
          try { new TextDecoder(name, { fatal: true }).decode(new Uint8Array([byte])); } catch { fatal++; }
        }
        out[name].push(fatal);
      }
      return out;
    }`,
  });
  const decoded = envelope.result as Record<string, number[]>;
  for (const name of SINGLE_BYTE) {
    const index = getEncoding(name);
    const expected = Array.from({ length: 256 }, (_, byte) =>
      byte < 0x80 ? byte : (index[byte - 0x80] ?? byte),
    );
    const unmapped = expected.filter((codePoint) => codePoint === 0xfffd).length;
    expect([...expected, unmapped], name).toStrictEqual(decoded[name]);
  }
  // Spot checks that do not depend on the package.
  expect(decoded['windows-1252']?.[0x80]).toBe(0x20ac);
  expect(decoded['iso-8859-2']?.[0xa1]).toBe(0x0104);
  expect(decoded['koi8-u']?.[0xa4]).toBe(0x0454);
  expect(decoded['windows-874']?.[0xdb]).toBe(0xfffd);
});
