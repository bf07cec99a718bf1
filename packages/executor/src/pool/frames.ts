/**
 * Frames on a byte stream: each is a 4-byte big-endian length, then that many bytes of UTF-8 text.
 * The pool's channel (channel.ts) carries one codec message per frame.
 *
 * The reader runs in the parent over bytes a child that runs hostile code writes, so it is bounded
 * in every way a peer could push it: a header announcing more than the limit is refused before a
 * byte of the body is kept; the body it keeps grows with the bytes that arrived (at most twice
 * them), not with what the header announced, so a peer that announces the limit and sends a trickle
 * holds little; a frame that arrives a byte per chunk is copied once into that growing buffer, never
 * kept as a list of chunks; bytes that are not UTF-8 are refused rather than replaced; and a stream
 * that ends inside a frame is reported as cut, not lost silently. After its first violation a reader
 * takes nothing more: the stream cannot be resynchronized and its peer is not speaking the protocol.
 */
import { isUtf8 } from 'node:buffer';
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';

/** Bytes of a frame's length prefix. */
export const FRAME_HEADER = 4;

/**
 * The most bytes a frame may announce. PAYLOAD_LIMIT counts a message's text in UTF-16 code units
 * (decodeMessage measures `text.length`); its UTF-8 takes at most three bytes per unit, so this is
 * the most a message within the limit takes on the wire. decodeMessage still measures the text.
 */
export const FRAME_LIMIT = 3 * PAYLOAD_LIMIT;

/** The first body buffer of a frame that did not arrive whole; it doubles as bytes come. */
export const INITIAL_BODY = 64 * 1024;

export function frameTooLargeMessage(announced: number, limit: number): string {
  return `A frame announced ${announced} bytes, past the limit of ${limit}.`;
}

export function truncatedFrameMessage(received: number, expected: number): string {
  return `The channel closed inside a frame: ${received} of ${expected} bytes had arrived.`;
}

export const NOT_UTF8_MESSAGE = "A frame's bytes are not UTF-8 text.";

/** One frame ready to write: the header and the text's UTF-8, in one buffer, so one write. */
export function encodeFrame(text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER + length);
  frame.writeUInt32BE(length, 0);
  frame.write(text, FRAME_HEADER, 'utf8');
  return frame;
}

export interface FrameReaderEvents {
  /** One frame's text, and the bytes of UTF-8 it came as. */
  frame(text: string, bytes: number): void;
  /** The stream broke the framing; nothing more is delivered. */
  violation(reason: string): void;
}

export class FrameReader {
  readonly #events: FrameReaderEvents;
  readonly #limit: number;
  readonly #header = Buffer.alloc(FRAME_HEADER);
  #headerHave = 0;
  /** The length of the frame whose body is arriving, or -1 between frames. */
  #expected = -1;
  #body: Buffer | undefined;
  #bodyHave = 0;
  #broken = false;

  constructor(events: FrameReaderEvents, limit: number = FRAME_LIMIT) {
    this.#events = events;
    this.#limit = limit;
  }

  /** Whether a violation ended it (or stop() did). */
  get stopped(): boolean {
    return this.#broken;
  }

  /** Bytes it holds for the frame arriving: what a peer can make it keep. */
  get buffered(): number {
    return this.#headerHave + (this.#body?.length ?? 0);
  }

  /** Takes no more input: its owner is ending the stream. */
  stop(): void {
    this.#broken = true;
    this.#body = undefined;
  }

  /** Takes one chunk of the stream; frames it completes are delivered before it returns. */
  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && !this.#broken) {
      if (this.#expected < 0) {
        const length = this.#readHeader(chunk, offset);
        // An incomplete header took the rest of the chunk.
        if (length === -1) return;
        offset = this.#afterHeader;
        if (length > this.#limit) {
          this.#fail(frameTooLargeMessage(length, this.#limit));
          return;
        }
        // The common case: the whole body is in this chunk, and its text is read from it in place.
        if (chunk.length - offset >= length) {
          this.#deliver(chunk.subarray(offset, offset + length));
          offset += length;
          continue;
        }
        this.#expected = length;
        this.#body = Buffer.allocUnsafe(Math.min(length, Math.max(INITIAL_BODY, chunk.length - offset)));
        this.#bodyHave = 0;
      }
      offset = this.#takeBody(chunk, offset);
    }
  }

  /**
   * The stream ended. Inside a frame that is a frame cut short, and the answer says so; between
   * frames, or after a violation, it is undefined. The owner decides what it means: a peer that is
   * gone cannot be answered, and how it went is told by whoever watches it.
   */
  end(): string | undefined {
    if (this.#broken) return undefined;
    const cut =
      this.#headerHave > 0
        ? truncatedFrameMessage(this.#headerHave, FRAME_HEADER)
        : this.#expected >= 0
          ? truncatedFrameMessage(this.#bodyHave, this.#expected)
          : undefined;
    this.stop();
    return cut;
  }

  /** Where the header just read ended in its chunk. */
  #afterHeader = 0;

  /** Reads (the rest of) a header from chunk at offset: the announced length, or -1 while incomplete. */
  #readHeader(chunk: Buffer, offset: number): number {
    if (this.#headerHave === 0 && chunk.length - offset >= FRAME_HEADER) {
      this.#afterHeader = offset + FRAME_HEADER;
      return chunk.readUInt32BE(offset);
    }
    const take = Math.min(FRAME_HEADER - this.#headerHave, chunk.length - offset);
    chunk.copy(this.#header, this.#headerHave, offset, offset + take);
    this.#headerHave += take;
    this.#afterHeader = offset + take;
    if (this.#headerHave < FRAME_HEADER) return -1;
    this.#headerHave = 0;
    return this.#header.readUInt32BE(0);
  }

  /** Copies what chunk holds of the arriving body; delivers it once complete. Returns the new offset. */
  #takeBody(chunk: Buffer, offset: number): number {
    const take = Math.min(this.#expected - this.#bodyHave, chunk.length - offset);
    let body = this.#body as Buffer;
    const need = this.#bodyHave + take;
    if (need > body.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.#expected, Math.max(need, body.length * 2)));
      body.copy(grown, 0, 0, this.#bodyHave);
      body = grown;
      this.#body = grown;
    }
    chunk.copy(body, this.#bodyHave, offset, offset + take);
    this.#bodyHave = need;
    if (this.#bodyHave === this.#expected) {
      const complete = body.subarray(0, this.#expected);
      this.#expected = -1;
      this.#body = undefined;
      this.#bodyHave = 0;
      this.#deliver(complete);
    }
    return offset + take;
  }

  #deliver(bytes: Buffer): void {
    if (!isUtf8(bytes)) {
      this.#fail(NOT_UTF8_MESSAGE);
      return;
    }
    this.#events.frame(bytes.toString('utf8'), bytes.length);
  }

  #fail(reason: string): void {
    this.stop();
    this.#events.violation(reason);
  }
}
