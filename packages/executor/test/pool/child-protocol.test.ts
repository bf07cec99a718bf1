/**
 * The child entry on its own, driven over a raw channel: every message is codec text in a frame
 * (a tool call's codec JSON after it, attachment.ts),
 * validated on arrival, and what fails validation is answered with a fault, never a crash. A
 * heartbeat is answered with the engine report once the engine check finished. A stream that
 * breaks the framing is answered with a fault naming how, and the child ends: nothing past it can be read.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { DEFAULT_CHILD_EXEC_ARGV, DEFAULT_CHILD_RSS_LIMIT } from '../../src/executor/defaults.ts';
import { decodeChannelMessage } from '../../src/pool/attachment.ts';
import { FRAMING_EXIT } from '../../src/pool/channel.ts';
import { CHILD_STDIO, childEntryUrl } from '../../src/pool/child-spawn.ts';
import {
  encodeFrame,
  FRAME_HEADER,
  FRAME_LIMIT,
  FrameReader,
  frameTooLargeMessage,
  NOT_UTF8_MESSAGE,
} from '../../src/pool/frames.ts';
import { type PoolMessage, validatePoolMessage } from '../../src/pool/messages/table.ts';
import { type DecodedPoolMessage, encodePoolMessage } from '../../src/pool/messages/wire.ts';
import { encodeSettings } from '../../src/pool/settings.ts';

/** The parent's decode: the schemas at hand, so every frame settles at once. */
const decodeSync = (text: string) => decodeChannelMessage(text, validatePoolMessage) as DecodedPoolMessage;

/** A child entry on its own, its channel read frame by frame: each frame's text is a 'message' event. */
function startChild(): { child: ChildProcess; pipe: Duplex; texts: EventEmitter; exited: Promise<unknown> } {
  const entry = fileURLToPath(childEntryUrl(new URL('../../src/pool/pool.ts', import.meta.url).href));
  const settings = encodeSettings({
    grace: 100,
    maxRetained: 4,
    allowLinkLocal: false,
    allowLoopback: false,
    allowPrivate: false,
    ownEndpoints: [],
    rssLimit: DEFAULT_CHILD_RSS_LIMIT,
  });
  const child = spawn(process.execPath, [...DEFAULT_CHILD_EXEC_ARGV, entry, settings], {
    stdio: [...CHILD_STDIO.slice(0, 2), 'inherit', CHILD_STDIO[3]],
  });
  const pipe = child.stdio[3] as Duplex;
  const texts = new EventEmitter();
  const reader = new FrameReader({
    frame: (text) => texts.emit('message', text),
    violation: (reason) => texts.emit('error', new Error(reason)),
  });
  pipe.on('data', (chunk: Buffer) => reader.push(chunk));
  return { child, pipe, texts, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

const { child, pipe, texts, exited } = startChild();
afterAll(async () => {
  child.kill('SIGTERM');
  await exited;
});

/**
 * Sends raw (text is framed; bytes go as they are), then reads messages until one matches; a child
 * that exits first fails the test at once.
 */
function exchange(
  raw: string | Buffer,
  match: (message: PoolMessage) => boolean,
  to: { child: ChildProcess; pipe: Duplex; texts: EventEmitter } = { child, pipe, texts },
): Promise<PoolMessage> {
  return new Promise((resolve, reject) => {
    // On 'close', not 'exit': Node may report the exit before the last bytes the child wrote on its
    // channel were read here, and a child that answers a broken frame and ends at once would read
    // as one that never answered (seen once on a loaded machine).
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`the child exited (${signal ?? code}) before answering`));
    const onMessage = (text: string) => {
      const decoded = decodeSync(text);
      if (!decoded.ok) return reject(new Error(decoded.fault.message));
      if (!match(decoded.message)) return;
      to.texts.off('message', onMessage);
      to.child.off('close', onExit);
      resolve(decoded.message);
    };
    to.texts.on('message', onMessage);
    to.child.once('close', onExit);
    to.pipe.write(typeof raw === 'string' ? encodeFrame(raw) : raw);
  });
}
const withId = (id: string) => (message: PoolMessage) => 'id' in message && message.id === id;

describe('a child', () => {
  test('answers a heartbeat with its engine report and its resident memory', async () => {
    const health = await exchange(encodePoolMessage({ type: 'heartbeat', id: 'h1' }), withId('h1'));
    expect(health).toMatchObject({ type: 'health', id: 'h1', executions: 0, retained: 0 });
    if (health.type !== 'health') return;
    expect(health.engine.node).toBe(process.version);
    expect(health.rss).toBeGreaterThan(0);
  });

  test('refuses text that is not codec JSON with a fault', async () => {
    expect(await exchange('{"type":', (message) => message.type === 'fault')).toMatchObject({
      type: 'fault',
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^The message is not codec JSON/),
    });
  });

  test('refuses a malformed message naming the field, keeping its conversation id', async () => {
    const raw = JSON.stringify({ type: 'execute', id: 'e1', request: { code: 7 } });
    expect(await exchange(raw, withId('e1'))).toStrictEqual({
      type: 'fault',
      id: 'e1',
      code: 'BAD_REQUEST',
      message: 'Invalid execute message: request.code must be a string of source code.',
    });
  });

  test('answers in the order messages came: one only the schemas decide, then a heartbeat behind it', async () => {
    // A child of its own, ready (its first heartbeat answered) and holding no zod: the first
    // message needs the schemas, which it loads then; the heartbeat, decided at once, waits its turn.
    const other = startChild();
    const order: string[] = [];
    const record = (text: string) => {
      const decoded = decodeSync(text);
      if (decoded.ok && 'id' in decoded.message && decoded.message.id?.startsWith('order-'))
        order.push(`${decoded.message.type} ${decoded.message.id}`);
    };
    try {
      await exchange(encodePoolMessage({ type: 'heartbeat', id: 'ready' }), withId('ready'), other);
      other.texts.on('message', record);
      const malformed = JSON.stringify({ type: 'execute', id: 'order-1', request: { code: 7 } });
      const heartbeat = encodePoolMessage({ type: 'heartbeat', id: 'order-2' });
      await exchange(
        Buffer.concat([encodeFrame(malformed), encodeFrame(heartbeat)]),
        withId('order-2'),
        other,
      );
      expect(order).toStrictEqual(['fault order-1', 'health order-2']);
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  });

  test('refuses a message a child never receives', async () => {
    const raw = encodePoolMessage({ type: 'result', id: 'r1', envelope: { logs: [] } });
    expect(await exchange(raw, withId('r1'))).toStrictEqual({
      type: 'fault',
      id: 'r1',
      code: 'BAD_REQUEST',
      message: 'A pool child does not accept result messages.',
    });
  });

  test('runs an execution, asking the parent for each tool call and waiting for its frame', async () => {
    const request = encodePoolMessage({
      type: 'execute',
      id: 'e2',
      request: { code: 'async () => (await t.add(2, 3)) * 10', providers: [{ name: 't' }] },
    });
    const dispatch = await exchange(request, (message) => message.type === 'dispatch');
    expect(dispatch).toStrictEqual({
      type: 'dispatch',
      id: 'e2',
      call: 0,
      provider: 't',
      tool: 'add',
      args: '[2,3]',
    });
    const reply = encodePoolMessage({
      type: 'dispatchReply',
      id: 'e2',
      call: 0,
      frame: ['returned', '{"result":5}'],
    });
    expect(await exchange(reply, (message) => message.type === 'result')).toStrictEqual({
      type: 'result',
      id: 'e2',
      envelope: { result: 50, logs: [] },
    });
  });

  test('sends hostWait edges only for an execution that asked for them', async () => {
    const seen: string[] = [];
    const record = (text: string) => {
      const decoded = decodeSync(text);
      if (decoded.ok && decoded.message.type === 'hostWait')
        seen.push(`${decoded.message.id}:${decoded.message.waiting}`);
    };
    texts.on('message', record);
    try {
      for (const [id, reportHostWaits] of [
        ['quiet', false],
        ['told', true],
      ] as const) {
        const request = { code: 'async () => t.one()', providers: [{ name: 't' }] };
        await exchange(encodePoolMessage({ type: 'execute', id, request, reportHostWaits }), withId(id));
        const reply = encodePoolMessage({
          type: 'dispatchReply',
          id,
          call: 0,
          frame: ['returned', '{"result":1}'],
        });
        await exchange(reply, (message) => message.type === 'result' && message.id === id);
      }
    } finally {
      texts.off('message', record);
    }
    expect(seen).toStrictEqual(['told:true', 'told:false']);
  });

  test('answers invoke and closeHandles for an execution it does not hold with HANDLES_CLOSED', async () => {
    const raw = encodePoolMessage({ type: 'closeHandles', id: 'c1', executionId: 'nope' });
    expect(await exchange(raw, withId('c1'))).toStrictEqual({
      type: 'fault',
      id: 'c1',
      code: 'HANDLES_CLOSED',
      message: 'Execution nope holds no handles: they were closed, expired, or never granted.',
    });
  });
});

describe('a child whose channel breaks the framing', () => {
  const GET = { method: 'GET', url: 'https://h.test/', headers: [], body: null };
  const broken: [string, Buffer, string][] = [
    [
      'a header announcing more than the limit',
      (() => {
        const bytes = Buffer.alloc(FRAME_HEADER);
        bytes.writeUInt32BE(FRAME_LIMIT + 1, 0);
        return bytes;
      })(),
      frameTooLargeMessage(FRAME_LIMIT + 1, FRAME_LIMIT),
    ],
    ['a frame whose bytes are not UTF-8', Buffer.from([0, 0, 0, 1, 0xff]), NOT_UTF8_MESSAGE],
  ];
  test('answers a message only the schemas decide that came before a broken frame, then reports the break', async () => {
    // A child of its own, ready and holding no zod: the invoke waits for the schemas to load, and
    // the broken frame behind it in the same write arrives while it waits. The schemas refuse it
    // (an empty executionId), which the child answers as it receives it.
    const other = startChild();
    const seen: unknown[] = [];
    try {
      await exchange(encodePoolMessage({ type: 'heartbeat', id: 'ready' }), withId('ready'), other);
      other.texts.on('message', (text: string) => {
        const decoded = decodeSync(text);
        // The isolate it prepares after its first heartbeat may say so at any point.
        if (!(decoded.ok && decoded.message.type === 'prepared')) seen.push(decoded);
      });
      const invoke = { type: 'invoke', id: 'before', executionId: '', handle: 'fetch', request: GET };
      const notUtf8 = Buffer.from([0, 0, 0, 1, 0xff]);
      other.pipe.write(Buffer.concat([encodeFrame(JSON.stringify(invoke)), notUtf8]));
      expect(await other.exited).toBe(FRAMING_EXIT);
      expect(seen).toStrictEqual([
        {
          ok: true,
          message: {
            type: 'fault',
            id: 'before',
            code: 'BAD_REQUEST',
            message: 'Invalid invoke message: executionId must not be empty.',
          },
        },
        { ok: true, message: { type: 'fault', code: 'BAD_REQUEST', message: NOT_UTF8_MESSAGE } },
      ]);
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  });

  test.each(broken)('answers %s with a fault naming it, and ends itself', async (_name, bytes, reason) => {
    const other = startChild();
    try {
      expect(await exchange(bytes, (message) => message.type === 'fault', other)).toStrictEqual({
        type: 'fault',
        code: 'BAD_REQUEST',
        message: reason,
      });
      // Nothing past a broken frame can be read: the child ends itself.
      expect(await other.exited).toBe(FRAMING_EXIT);
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  });
});
