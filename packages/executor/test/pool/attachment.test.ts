/**
 * A tool call's codec JSON travels after its message on the pool's channel (attachment.ts): it
 * comes back exactly as it left, whatever it holds, and a frame that misuses the form is refused
 * with the sentence naming why. The hostile child's version is in channel-attacks.test.ts.
 */
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import {
  decodeChannelMessage,
  encodeChannelMessage,
  FILLED_ATTACHMENT_FIELD_MESSAGE,
  unexpectedAttachmentMessage,
} from '../../src/pool/attachment.ts';
import { type PoolMessage, validatePoolMessage } from '../../src/pool/messages/table.ts';
import { type DecodedPoolMessage, encodePoolMessage } from '../../src/pool/messages/wire.ts';
import { TOOLS_PROVIDER, usePool } from './helpers.ts';

/** The parent's decode: the schemas at hand, so every frame settles at once. */
const decodeSync = (text: string) => decodeChannelMessage(text, validatePoolMessage) as DecodedPoolMessage;

/** Texts an argument list or an answer may be: line feeds, quotes, escapes, non-ASCII, a lone surrogate. */
const TEXTS = [
  '',
  '[1,"two"]',
  '{"result":"a\\nb"}',
  'line one\nline two\n',
  '\n',
  '"\\"\u2028\u0000',
  'héllo 𝄞 世界',
  'lone \ud800 surrogate',
  '{"$binary":"Uint8Array","base64":"AAEC"}',
];

const messagesOf = (text: string): PoolMessage[] => [
  { type: 'dispatch', id: 'x1', call: 3, provider: 'tools', tool: 'echo', args: text },
  { type: 'dispatchReply', id: 'x1', call: 3, frame: ['returned', text] },
  { type: 'dispatchReply', id: 'x1', call: 4, frame: ['thrown', text] },
];

describe('the pool channel carries a tool call codec JSON as an attachment', () => {
  test.each(TEXTS)('%j crosses unchanged in a dispatch and both reply frames', (text) => {
    for (const message of messagesOf(text)) {
      const wire = encodeChannelMessage(message);
      expect(decodeSync(wire)).toStrictEqual({ ok: true, message });
    }
  });

  test('the string crosses as it is, not escaped: what the frame holds after the line feed', () => {
    const answer = '{"result":"say \\"hi\\""}';
    const wire = encodeChannelMessage({
      type: 'dispatchReply',
      id: 'x1',
      call: 0,
      frame: ['returned', answer],
    });
    expect(wire.slice(wire.indexOf('\n') + 1)).toBe(answer);
  });

  test('a message inline, as the server protocol writes it, decodes as before', () => {
    for (const message of messagesOf('[1]')) {
      expect(decodeSync(encodePoolMessage(message))).toStrictEqual({ ok: true, message });
    }
  });

  test('an attachment after a message that has none is refused, naming the type', () => {
    expect(
      decodeSync(`${encodePoolMessage({ type: 'hostWait', id: 'x1', waiting: true })}\n[1]`),
    ).toStrictEqual({
      ok: false,
      fault: { code: 'BAD_REQUEST', id: 'x1', message: unexpectedAttachmentMessage('hostWait') },
    });
    expect(decodeSync('{"type":"prepared"}\n')).toStrictEqual({
      ok: false,
      fault: { code: 'BAD_REQUEST', message: unexpectedAttachmentMessage('prepared') },
    });
  });

  test('a field both inside the message and attached is refused', () => {
    for (const message of messagesOf('[1]')) {
      expect(decodeSync(`${encodePoolMessage(message)}\n[2]`)).toStrictEqual({
        ok: false,
        fault: { code: 'BAD_REQUEST', id: 'x1', message: FILLED_ATTACHMENT_FIELD_MESSAGE },
      });
    }
  });

  test('a message part that is not a message is refused as decodeMessage refuses it', () => {
    const decoded = decodeSync('{"type":"dispatch"\n[1]');
    expect(decoded.ok).toBe(false);
    expect(decoded.ok ? '' : decoded.fault.message).toMatch(/^The message is not codec JSON: /);
  });

  test('the whole text counts against PAYLOAD_LIMIT, on both sides', () => {
    const large = 'x'.repeat(PAYLOAD_LIMIT);
    expect(() =>
      encodeChannelMessage({ type: 'dispatchReply', id: 'x1', call: 0, frame: ['returned', large] }),
    ).toThrow(/^The dispatchReply message is \d+ bytes, past the \d+-byte payload limit\.$/);
    const decoded = decodeSync(`{"type":"prepared"}\n${large}`);
    expect(decoded.ok ? '' : decoded.fault.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('through a real child, a tool gets its arguments and the program its answer exactly', async () => {
    const { pool } = usePool({ size: 1 });
    const seen: string[] = [];
    const envelope = await pool.execute(
      {
        code: `async () => { const texts = ${JSON.stringify(TEXTS)}; const back = []; for (const text of texts) back.push(await tools.echo(text)); return back }`,
        providers: TOOLS_PROVIDER,
      },
      {
        dispatch: async (_provider, _tool, args) => {
          seen.push(args);
          return JSON.stringify({ result: JSON.parse(args)[0] });
        },
      },
    );
    expect(envelope).toStrictEqual({ result: TEXTS, logs: [] });
    expect(seen.map((args) => JSON.parse(args)[0])).toStrictEqual(TEXTS);
  });

  test('through a real child, a raw answer holding a lone surrogate or a line feed reaches the program as it is', async () => {
    const { pool } = usePool({ size: 1 });
    const answers = ['{"result":"lone \ud800"}', '{\n"result":\n"two\\nlines"\n}'];
    const envelope = await pool.execute(
      {
        code: 'async () => [await tools.a(), await tools.b()]',
        providers: TOOLS_PROVIDER,
      },
      { dispatch: async (_provider, tool) => (tool === 'a' ? answers[0] : answers[1]) as string },
    );
    expect(envelope).toStrictEqual({ result: ['lone \ud800', 'two\nlines'], logs: [] });
  });
});
