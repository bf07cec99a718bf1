/** The caller's Request and Response against the wire shapes: what crosses, and what cannot. */
import { expect, test } from 'vitest';
import { fromWireResponse, toWireRequest } from '../../src/executor/http.ts';

test('a request crosses as method, url, header pairs and buffered bytes', async () => {
  const wire = await toWireRequest(
    new Request('https://example.test/a', { method: 'POST', headers: { 'x-a': '1' }, body: 'hi' }),
  );
  expect(wire).toStrictEqual({
    method: 'POST',
    url: 'https://example.test/a',
    headers: [
      ['content-type', 'text/plain;charset=UTF-8'],
      ['x-a', '1'],
    ],
    body: new Uint8Array([104, 105]),
    redirect: 'follow',
  });
});

test('a null-body status drops the body; a status a Response cannot hold is a coded error', async () => {
  const bytes = new Uint8Array([1]);
  const noContent = fromWireResponse({ status: 204, statusText: '', headers: [], body: bytes });
  expect([noContent.status, noContent.body]).toStrictEqual([204, null]);
  expect(() => fromWireResponse({ status: 101, statusText: '', headers: [], body: null })).toThrow(
    expect.objectContaining({
      code: 'INTERNAL',
      message: expect.stringMatching(/^The handler answered a response a standard Response cannot hold: /),
    }),
  );
});
