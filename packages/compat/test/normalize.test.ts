/** Normalisation masks exactly what docs/compat.md says, and nothing else. */
import { describe, expect, test } from 'vitest';
import { normaliseRecord, normaliseString } from '../src/compare/normalize.ts';

const loopbackOrigin = 'http://127.0.0.1:43123';

describe('normaliseString', () => {
  test('the loopback origin and host become the placeholder', () => {
    expect(normaliseString('GET http://127.0.0.1:43123/json from 127.0.0.1:43123', { loopbackOrigin })).toBe(
      'GET http://loopback.test/json from loopback.test',
    );
  });

  test('version 4 UUIDs are masked, other hex is not', () => {
    expect(normaliseString('id 3b241101-e2bb-4255-8caf-4136c566a962 ok', { loopbackOrigin })).toBe(
      'id <uuid> ok',
    );
    expect(normaliseString('3b241101-e2bb-1255-8caf-4136c566a962 deadbeef', { loopbackOrigin })).toBe(
      '3b241101-e2bb-1255-8caf-4136c566a962 deadbeef',
    );
  });

  test('timestamps only when the case asks', () => {
    const text = 'at 2026-11-30T11:20:11.583Z';
    expect(normaliseString(text, { loopbackOrigin })).toBe(text);
    expect(normaliseString(text, { loopbackOrigin, masks: ['timestamps'] })).toBe('at <timestamp>');
  });
});

describe('normaliseRecord', () => {
  test('walks results, errors, logs and keys; leaves numbers and binary values alone', () => {
    const bytes = new Uint8Array([1, 2]);
    const record = normaliseRecord(
      {
        result: { 'http://127.0.0.1:43123/a': [1796035293434, bytes], n: 1 },
        error: 'failed at http://127.0.0.1:43123/x',
        logs: [{ level: 'log', text: 'uuid 3b241101-e2bb-4255-8caf-4136c566a962' }],
      },
      { loopbackOrigin },
    );
    expect(record).toEqual({
      result: { 'http://loopback.test/a': [1796035293434, bytes], n: 1 },
      error: 'failed at http://loopback.test/x',
      logs: [{ level: 'log', text: 'uuid <uuid>' }],
    });
  });

  test('epoch milliseconds only under timestamps', () => {
    const record = normaliseRecord(
      { result: [1796035293434, 42], logs: [] },
      { loopbackOrigin, masks: ['timestamps'] },
    );
    expect(record.result).toEqual(['<epoch-ms>', 42]);
  });

  test("a handler's response headers compare lowercased and sorted by name, repeated ones in order", () => {
    const record = normaliseRecord(
      {
        logs: [],
        responses: [
          {
            status: 200,
            headers: [
              ['X-B', '2'],
              ['set-cookie', 'a=1'],
              ['x-a', '1'],
              ['Set-Cookie', 'b=2'],
            ],
            body: '',
          },
        ],
      },
      { loopbackOrigin },
    );
    expect(record.responses?.[0]?.headers).toEqual([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['x-a', '1'],
      ['x-b', '2'],
    ]);
  });
});
