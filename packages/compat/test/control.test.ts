/** workerd's control channel as the harness reads it. */
import { describe, expect, test } from 'vitest';
import { lineSplitter, parseControlLine } from '../src/workerd/control.ts';

describe('parseControlLine', () => {
  test('a listen event carries its socket and port', () => {
    expect(parseControlLine('{"event":"listen","socket":"http","port":44777}')).toEqual({
      kind: 'listen',
      listen: { event: 'listen', socket: 'http', port: 44777 },
    });
  });

  test('other events are recognised and set aside', () => {
    expect(parseControlLine('{"event":"listen-inspector","port":9229}')).toEqual({
      kind: 'other',
      event: 'listen-inspector',
    });
  });

  test('a malformed listen event or a non-JSON line is an error', () => {
    expect(() => parseControlLine('{"event":"listen","socket":"http","port":0}')).toThrow(/unknown shape/);
    expect(() => parseControlLine('listening')).toThrow(
      'workerd wrote a control line that is not JSON: "listening"',
    );
  });
});

test('lineSplitter joins chunks and splits lines', () => {
  const lines: string[] = [];
  const push = lineSplitter((line) => lines.push(line));
  push('{"a"');
  push(':1}\n\n{"b":2}\n{"c"');
  expect(lines).toEqual(['{"a":1}', '{"b":2}']);
});
