/**
 * Frames on a byte stream (frames.ts): what a writer frames arrives as the same texts in order,
 * however the stream is cut into chunks, and a stream that breaks the framing is a violation named
 * verbatim, after which nothing more is delivered; a stream ending inside a frame is reported cut. What the reader holds grows with the bytes that
 * arrived, never with what a header announced.
 */
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { describe, expect, test } from 'vitest';
import {
  encodeFrame,
  FRAME_HEADER,
  FRAME_LIMIT,
  FrameReader,
  frameTooLargeMessage,
  INITIAL_BODY,
  NOT_UTF8_MESSAGE,
  truncatedFrameMessage,
} from '../../src/pool/frames.ts';

/** A reader recording what it delivers. */
function recorder(limit?: number) {
  const frames: string[] = [];
  const violations: string[] = [];
  const reader = new FrameReader(
    { frame: (text) => frames.push(text), violation: (reason) => violations.push(reason) },
    limit,
  );
  return { reader, frames, violations };
}

function header(length: number): Buffer {
  const bytes = Buffer.alloc(FRAME_HEADER);
  bytes.writeUInt32BE(length, 0);
  return bytes;
}

const TEXTS = ['{"type":"heartbeat","id":"h1"}', '', 'é€𝄞 and "quotes"\n', 'x'.repeat(70_000)];
const STREAM = Buffer.concat(TEXTS.map(encodeFrame));

describe('a frame reader', () => {
  test('delivers the texts in order from one chunk holding them all', () => {
    const { reader, frames, violations } = recorder();
    reader.push(STREAM);
    expect(reader.end()).toBeUndefined();
    expect(frames).toStrictEqual(TEXTS);
    expect(violations).toStrictEqual([]);
  });

  test('delivers the same texts however the stream is cut: at every point, and a byte at a time', () => {
    const small = Buffer.concat(TEXTS.slice(0, 3).map(encodeFrame));
    for (let cut = 0; cut <= small.length; cut++) {
      const { reader, frames } = recorder();
      reader.push(small.subarray(0, cut));
      reader.push(small.subarray(cut));
      expect(frames).toStrictEqual(TEXTS.slice(0, 3));
    }
    const { reader, frames, violations } = recorder();
    for (let index = 0; index < STREAM.length; index++) reader.push(STREAM.subarray(index, index + 1));
    reader.end();
    expect(frames).toStrictEqual(TEXTS);
    expect(violations).toStrictEqual([]);
  });

  test('refuses a header announcing more than its limit, before keeping any of the body', () => {
    const { reader, frames, violations } = recorder();
    reader.push(Buffer.concat([header(FRAME_LIMIT + 1), Buffer.from('{}')]));
    expect(violations).toStrictEqual([frameTooLargeMessage(FRAME_LIMIT + 1, FRAME_LIMIT)]);
    expect(reader.buffered).toBe(0);
    // Nothing after a violation is read: the stream cannot be resynchronized.
    reader.push(STREAM);
    reader.end();
    expect(frames).toStrictEqual([]);
    expect(violations).toHaveLength(1);
  });

  test('a frame of exactly the limit is taken; one byte more is not', () => {
    const at = recorder(8);
    at.reader.push(encodeFrame('12345678'));
    expect(at.frames).toStrictEqual(['12345678']);
    const past = recorder(8);
    past.reader.push(encodeFrame('123456789'));
    expect(past.violations).toStrictEqual([frameTooLargeMessage(9, 8)]);
  });

  test('refuses bytes that are not UTF-8 instead of replacing them', () => {
    const { reader, frames, violations } = recorder();
    reader.push(Buffer.concat([header(2), Buffer.from([0xc3, 0x28]), encodeFrame('after')]));
    expect(violations).toStrictEqual([NOT_UTF8_MESSAGE]);
    expect(frames).toStrictEqual([]);
  });

  test('a stream ending inside a header or a body is reported cut, naming how much had arrived', () => {
    const inHeader = recorder();
    inHeader.reader.push(Buffer.from([0, 0]));
    expect(inHeader.reader.end()).toBe(truncatedFrameMessage(2, FRAME_HEADER));
    const inBody = recorder();
    inBody.reader.push(encodeFrame('0123456789').subarray(0, FRAME_HEADER + 3));
    expect(inBody.reader.end()).toBe(truncatedFrameMessage(3, 10));
    const between = recorder();
    between.reader.push(encodeFrame('whole'));
    expect(between.reader.end()).toBeUndefined();
    expect([inHeader, inBody, between].map(({ frames }) => frames)).toStrictEqual([[], [], ['whole']]);
  });

  test('holds at most twice what arrived of a frame announcing the limit, read a byte at a time', () => {
    const { reader, violations } = recorder();
    reader.push(header(FRAME_LIMIT));
    const byte = Buffer.from('x');
    for (let received = 1; received <= 1024 * 1024; received++) {
      reader.push(byte);
      if ((received & (received - 1)) === 0 || received % 65_537 === 0) {
        expect(reader.buffered).toBeLessThanOrEqual(Math.max(INITIAL_BODY, 2 * received));
      }
    }
    expect(violations).toStrictEqual([]);
  });

  test('10 MB arriving a byte per chunk comes out as the one text it was', () => {
    const text = 'ab'.repeat(5 * 1024 * 1024);
    const stream = encodeFrame(text);
    const { reader, frames } = recorder();
    for (let index = 0; index < stream.length; index++) reader.push(stream.subarray(index, index + 1));
    expect(frames).toHaveLength(1);
    expect(frames[0] === text).toBe(true);
  });
});

describe('frames over a real pipe', () => {
  test('come back through a child echoing its fd 3 byte for byte as the texts that left', async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Socket } from 'node:net'; const s = new Socket({ fd: 3, readable: true, writable: true }); s.pipe(s);",
      ],
      { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] },
    );
    const pipe = child.stdio[3] as Duplex;
    const big = 'é'.repeat(3 * 1024 * 1024);
    const sent = [...TEXTS, big, 'last'];
    const received = new Promise<string[]>((resolve, reject) => {
      const frames: string[] = [];
      const reader = new FrameReader({
        frame: (text) => {
          frames.push(text);
          if (frames.length === sent.length) resolve(frames);
        },
        violation: (reason) => reject(new Error(reason)),
      });
      pipe.on('data', (chunk: Buffer) => reader.push(chunk));
    });
    for (const text of sent) pipe.write(encodeFrame(text));
    const frames = await received;
    child.kill();
    expect(frames.length).toBe(sent.length);
    for (const [index, text] of frames.entries()) expect(text === sent[index]).toBe(true);
  });
});
