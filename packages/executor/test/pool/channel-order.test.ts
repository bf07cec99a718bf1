/**
 * The channel's order when a message waits for a schema path that answers later (a pool child
 * loads the schemas with the first message its hot checks do not decide): every message that
 * arrived before a broken frame or the stream's end is delivered, in order, and only then is the
 * break or the end reported. Its owner stopping the reading delivers nothing more.
 */
import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import { Channel } from '../../src/pool/channel.ts';
import { encodeFrame, NOT_UTF8_MESSAGE, truncatedFrameMessage } from '../../src/pool/frames.ts';
import { validatePoolMessage } from '../../src/pool/messages/table.ts';
import { type DecodedPoolMessage, encodePoolMessage } from '../../src/pool/messages/wire.ts';

/** A channel over an in-memory stream whose schema path answers after a turn of the event loop. */
function openChannel() {
  const stream = new PassThrough();
  const seen: unknown[] = [];
  let loaded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    loaded = resolve;
  });
  const channel = new Channel(
    stream,
    {
      received: (decoded) => seen.push(summary(decoded)),
      violation: (reason) => {
        seen.push(`violation: ${reason}`);
        loaded();
      },
      closed: (cut) => {
        seen.push(`closed: ${cut ?? 'between frames'}`);
        loaded();
      },
    },
    {
      schemaPath: (value) =>
        new Promise((resolve) => setTimeout(() => resolve(validatePoolMessage(value)), 20)),
    },
  );
  return { stream, seen, channel, ended };
}

function summary(decoded: DecodedPoolMessage): string {
  if (!decoded.ok) return `fault: ${decoded.fault.message}`;
  return `${decoded.message.type} ${'id' in decoded.message ? decoded.message.id : ''}`;
}

const GET = { method: 'GET', url: 'https://h.test/', headers: [], body: null };
// Only the schemas decide an invoke; the hot checks decide a heartbeat at once.
const invoke = encodeFrame(
  encodePoolMessage({ type: 'invoke', id: 'i1', executionId: 'e', handle: 'fetch', request: GET }),
);
const heartbeat = encodeFrame(encodePoolMessage({ type: 'heartbeat', id: 'h1' }));

test('a broken frame behind a message waiting for the schemas is reported after it and what followed it', async () => {
  const { stream, seen, ended } = openChannel();
  stream.write(Buffer.concat([invoke, heartbeat, Buffer.from([0, 0, 0, 1, 0xff]), heartbeat]));
  await ended;
  expect(seen).toStrictEqual(['invoke i1', 'heartbeat h1', `violation: ${NOT_UTF8_MESSAGE}`]);
});

test("the stream's end behind a message waiting for the schemas is reported after it", async () => {
  const { stream, seen, ended } = openChannel();
  stream.end(Buffer.concat([invoke, heartbeat]));
  await ended;
  expect(seen).toStrictEqual(['invoke i1', 'heartbeat h1', 'closed: between frames']);
});

test('an end cutting a frame short behind a waiting message names the cut frame after the message', async () => {
  const { stream, seen, ended } = openChannel();
  stream.end(Buffer.concat([invoke, heartbeat.subarray(0, 6)]));
  await ended;
  expect(seen).toStrictEqual(['invoke i1', `closed: ${truncatedFrameMessage(2, heartbeat.length - 4)}`]);
});

test('an owner that stops reading while a message waits gets neither the message nor the break', async () => {
  const stream = new PassThrough();
  const seen: string[] = [];
  let answer: (decoded: DecodedPoolMessage) => void = () => {};
  let asked: (value: unknown) => void = () => {};
  const waiting = new Promise<unknown>((resolve) => {
    asked = resolve;
  });
  const channel = new Channel(
    stream,
    {
      received: (decoded) => seen.push(summary(decoded)),
      violation: (reason) => seen.push(`violation: ${reason}`),
      closed: () => seen.push('closed'),
    },
    {
      schemaPath: (value) =>
        new Promise((resolve) => {
          answer = resolve;
          asked(value);
        }),
    },
  );
  stream.write(Buffer.concat([invoke, Buffer.from([0, 0, 0, 1, 0xff])]));
  const value = await waiting;
  channel.stopReading();
  answer(validatePoolMessage(value));
  // The delivery and the report would run on promise reactions of that answer: let them all run.
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen).toStrictEqual([]);
});
