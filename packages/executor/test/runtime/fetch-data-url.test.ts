/**
 * fetch of data: URLs, in a real isolate with no outbound at all (they never reach the host): WPT's
 * data-urls.json table as fetch/data-urls/processing.any.js runs it, WPT's base64.json under
 * workerd's permissive base64, and the response workerd builds around the payload.
 */
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';
import { readWptJson } from './wpt/harness.ts';

const sandbox = useSandbox();

type Outcome = 'failure' | { type: string | null; bytes: number[] };

/** Fetches every URL in one run: the Content-Type and body bytes, or 'failure' for a TypeError. */
async function fetchAll(urls: string[]): Promise<Outcome[]> {
  const envelope = await sandbox.execute({
    code: `async () => {
  const out = [];
  for (const url of ${JSON.stringify(urls)}) {
    try {
      const response = await fetch(url);
      out.push({ type: response.headers.get('content-type'), bytes: [...new Uint8Array(await response.arrayBuffer())] });
    } catch (error) {
      out.push(error instanceof TypeError ? 'failure' : String(error));
    }
  }
  return out;
}`,
  });
  expect(envelope.error).toBeUndefined();
  return envelope.result as Outcome[];
}

describe('fetch of data: URLs', () => {
  test('WPT data-urls.json: every MIME type and body, every failure', async () => {
    const table = (readWptJson('fetch/data-urls/resources/data-urls.json') as unknown[]).filter(
      (entry): entry is [string, string | null, number[]] => Array.isArray(entry),
    );
    const outcomes = await fetchAll(table.map(([url]) => url));
    expect(outcomes).toStrictEqual(
      table.map(([, type, bytes]) => (type === null ? 'failure' : { type, bytes })),
    );
    expect(table.length).toBe(70);
  });

  test("WPT base64.json: decoded as WPT says where it decodes, else by workerd's permissive rule", async () => {
    const table = (readWptJson('fetch/data-urls/resources/base64.json') as unknown[]).filter(
      (entry): entry is [string, number[] | null] => Array.isArray(entry),
    );
    const outcomes = await fetchAll(table.map(([input]) => `data:;base64,${input}`));
    // workerd skips what is outside the alphabet and ignores leftover bits; so does Node's decoder.
    const permissive = (input: string) => [...Buffer.from(input.replace(/[^A-Za-z0-9+/]/g, ''), 'base64')];
    expect(outcomes).toStrictEqual(
      table.map(([input, bytes]) => ({
        type: 'text/plain;charset=US-ASCII',
        bytes: bytes ?? permissive(input),
      })),
    );
    expect(outcomes.filter((_, index) => table[index]?.[1] === null).length).toBe(49);
  });

  test('the response: 200 OK, no URL, changeable headers, a body for GET only, the signal not consulted', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const response = await fetch('data:text/plain;charset=utf-8,h%C3%A9#fragment', { signal: AbortSignal.abort() });
  response.headers.set('x-added', '1');
  const head = await fetch('data:,x', { method: 'HEAD' });
  const post = await fetch(new Request('data:,x', { method: 'POST', body: 'ignored' }));
  let missingComma;
  try { await fetch('data:text/plain') } catch (e) { missingComma = e.message }
  return [response.status, response.statusText, response.type, response.url, response.redirected, [...response.headers], await response.text(), head.body, post.body, missingComma];
}`,
    });
    expect(envelope.result).toStrictEqual([
      200,
      'OK',
      'default',
      '',
      false,
      [
        ['content-type', 'text/plain;charset=utf-8'],
        ['x-added', '1'],
      ],
      'hé',
      null,
      null,
      'Fetch API cannot load: data:text/plain',
    ]);
  });
});
