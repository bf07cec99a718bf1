/** Upstream tool results as the program receives them (docs/mcp.md, "Results and errors"). */
import { describe, expect, test } from 'vitest';
import { toProgramValue, UpstreamToolError } from '../src/results.ts';

describe('upstream results', () => {
  test('structuredContent wins over the content', () => {
    expect(
      toProgramValue({ structuredContent: { a: 1 }, content: [{ type: 'text', text: '{"a":1}' }] }),
    ).toEqual({ a: 1 });
  });

  test('text parses as JSON when it is JSON, and stays text otherwise', () => {
    expect(toProgramValue({ content: [{ type: 'text', text: ' [1, 2] ' }] })).toEqual([1, 2]);
    expect(toProgramValue({ content: [{ type: 'text', text: '42' }] })).toBe(42);
    expect(toProgramValue({ content: [{ type: 'text', text: 'hello' }] })).toBe('hello');
    expect(toProgramValue({ content: [{ type: 'text', text: '' }] })).toBe('');
  });

  test('several blocks are a list; images and audio are bytes with their MIME type', () => {
    const value = toProgramValue({
      content: [
        { type: 'text', text: 'here' },
        { type: 'image', mimeType: 'image/png', data: Buffer.from([1, 2, 3]).toString('base64') },
        { type: 'audio', mimeType: 'audio/wav', data: Buffer.from([9]).toString('base64') },
        { type: 'resource', resource: { uri: 'file:///a', blob: Buffer.from('hi').toString('base64') } },
      ],
    }) as unknown[];
    expect(value[0]).toBe('here');
    expect(value[1]).toEqual({ type: 'image', mimeType: 'image/png', data: new Uint8Array([1, 2, 3]) });
    expect((value[1] as { data: unknown }).data).toBeInstanceOf(Uint8Array);
    expect(value[2]).toEqual({ type: 'audio', mimeType: 'audio/wav', data: new Uint8Array([9]) });
    expect(value[3]).toEqual({ uri: 'file:///a', blob: new Uint8Array([104, 105]) });
  });

  test('isError throws with the upstream text', () => {
    expect(() =>
      toProgramValue({ isError: true, content: [{ type: 'text', text: 'no such repo' }] }),
    ).toThrow(new UpstreamToolError('no such repo'));
    expect(() => toProgramValue({ isError: true, content: [] })).toThrow(
      'The tool reported an error and gave no text.',
    );
  });

  test('no content is an empty list', () => {
    expect(toProgramValue({ content: [] })).toEqual([]);
  });
});
