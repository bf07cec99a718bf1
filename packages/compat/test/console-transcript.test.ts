/**
 * How workerd's own console lines are cut out of its output (src/workerd/console-transcript.ts):
 * a marked block is one line's text however the stream was split into chunks, what falls outside
 * the markers is nobody's, and a line workerd never wrote shows as missing instead of waiting for
 * ever.
 */
import { expect, test } from 'vitest';
import { ConsoleTranscripts, consoleMark } from '../src/workerd/console-transcript.ts';

const block = (run: string, index: number, text: string) =>
  `${consoleMark(run)} ${index} open\n${text}\n${consoleMark(run)} ${index} close\n`;

test('blocks of two runs on two streams, split anywhere, each keep their text', async () => {
  const transcripts = new ConsoleTranscripts();
  const stdout = transcripts.stream();
  const stderr = transcripts.stream();
  const written = `workerd's own line\n${block('a', 0, '[\n  1,\n  2\n]')}${block('b', 0, '')}${block('a', 2, 'x { a: 1 }')}`;
  for (let at = 0; at < written.length; at += 7) stdout(written.slice(at, at + 7));
  stderr(block('a', 1, '  padded warning  '));
  expect(await transcripts.take('a', 3)).toStrictEqual([
    '[\n  1,\n  2\n]',
    '  padded warning  ',
    'x { a: 1 }',
  ]);
  expect(await transcripts.take('b', 1)).toStrictEqual(['']);
});

test('a take waits for lines still on their way', async () => {
  const transcripts = new ConsoleTranscripts();
  const stdout = transcripts.stream();
  const taken = transcripts.take('late', 1);
  stdout(block('late', 0, 'arrived'));
  expect(await taken).toStrictEqual(['arrived']);
});

test('a line never written is missing once the wait is over', async () => {
  const transcripts = new ConsoleTranscripts();
  transcripts.stream()(block('short', 0, 'only one'));
  expect(await transcripts.take('short', 2)).toStrictEqual(['only one', undefined]);
}, 10_000);
