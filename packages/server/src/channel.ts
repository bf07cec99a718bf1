/**
 * The socket under one connection, and what keeps it honest whatever the peer does: every message
 * measured in UTF-8 bytes against PAYLOAD_LIMIT, the send buffer watched (a peer that stops
 * reading is not read either, then loses the socket), a ping on an interval (a peer that stopped
 * answering, a half-open TCP connection among them, loses the socket), and a close that drops the
 * socket when the peer does not answer the closing handshake.
 *
 * Reading stops while anything holds the channel: a message waiting its turn (in-order.ts), or a
 * peer past sendBufferLimit. The second is what bounds a peer that sends and never reads: every
 * message it sends is answered (a fault, an OVERLOADED result), so reading on would queue answers
 * here for as long as it kept sending, about a kilobyte of heap for each small one (865 MB from one
 * such connection in 50 s, measured); held, its messages wait in its own buffers and the kernels'.
 */
import {
  encodeMessage,
  type Message,
  PAYLOAD_LIMIT,
  PayloadTooLargeError,
} from '@supolka/codemode-protocol/wire';
import type { RawData, WebSocket } from 'ws';
import type { DropCause } from './log.ts';

/** How long a peer has to answer our close before its socket is dropped: ws alone waits 30 s. */
export const CLOSE_GRACE = 1_000;

export interface ChannelLimits {
  /** Bytes sent and not yet read past which the connection is congested. */
  readonly sendBufferLimit: number;
  /** How long the connection may stay congested before the socket is dropped. */
  readonly congestionTimeout: number;
  readonly pingInterval: number;
}

export class Channel {
  readonly #socket: WebSocket;
  readonly #limits: ChannelLimits;
  readonly #pinger: NodeJS.Timeout;
  /** Whether the peer answered the last ping. */
  #answered = true;
  #congestion: NodeJS.Timeout | undefined;
  #grace: NodeJS.Timeout | undefined;
  /** How many reasons there are not to read the socket now; it is paused while any is left. */
  #holds = 0;
  /** Whether one of those holds is the peer's: past sendBufferLimit when a message was last sent. */
  #heldForCongestion = false;

  readonly #onDrop: (cause: DropCause) => void;

  /** `onDrop` hears each time the socket is dropped without a closing handshake, and why. */
  constructor(socket: WebSocket, limits: ChannelLimits, onDrop: (cause: DropCause) => void = () => {}) {
    this.#socket = socket;
    this.#limits = limits;
    this.#onDrop = onDrop;
    socket.on('pong', () => {
      this.#answered = true;
    });
    this.#pinger = setInterval(() => this.#ping(), limits.pingInterval);
    socket.on('close', () => {
      clearInterval(this.#pinger);
      clearTimeout(this.#congestion);
      clearTimeout(this.#grace);
    });
  }

  get open(): boolean {
    return this.#socket.readyState === this.#socket.OPEN;
  }

  /**
   * The peer leaves more unread than sendBufferLimit: bytes sent and still held here, beyond what
   * the kernels' buffers took. It gets no new work until it reads.
   */
  get congested(): boolean {
    return this.#socket.bufferedAmount > this.#limits.sendBufferLimit;
  }

  /** Stops reading the socket until every hold is released (what was read already still arrives). */
  hold(): void {
    if (this.#holds++ === 0) this.#socket.pause();
  }

  release(): void {
    if (--this.#holds === 0) this.#socket.resume();
  }

  /**
   * Encodes and sends. Throws PayloadTooLargeError when the text is past PAYLOAD_LIMIT bytes, so
   * the caller can answer with a smaller message; a socket no longer open takes nothing.
   */
  sendOrThrow(message: Message): void {
    const text = encodeMessage(message, Number.POSITIVE_INFINITY);
    // A UTF-8 character takes at most 3 bytes, so shorter texts need no count.
    if (text.length * 3 > PAYLOAD_LIMIT) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > PAYLOAD_LIMIT)
        throw new PayloadTooLargeError(`${message.type} message`, bytes, PAYLOAD_LIMIT);
    }
    if (!this.open) return;
    this.#socket.send(text, this.#flushed);
    if (this.congested) this.#onCongested();
  }

  /** The closing handshake, with CLOSE_GRACE for the peer to answer it. */
  close(code: number, reason: string): void {
    if (this.#socket.readyState === this.#socket.CLOSED) return;
    this.#socket.close(code, reason);
    this.#grace ??= setTimeout(() => this.terminate('close unanswered'), CLOSE_GRACE);
  }

  /** Drops the socket at once, without the closing handshake; the close event still follows. */
  terminate(cause: DropCause): void {
    if (this.#socket.readyState === this.#socket.CLOSED) return;
    this.#onDrop(cause);
    this.#socket.terminate();
  }

  /**
   * The peer leaves more than sendBufferLimit unread: it is not read until it reads (#flushed), and
   * one still congested when congestionTimeout has passed is not reading: its socket goes.
   */
  #onCongested(): void {
    if (!this.#heldForCongestion) {
      this.#heldForCongestion = true;
      this.hold();
    }
    if (this.#congestion !== undefined) return;
    this.#congestion = setTimeout(() => {
      this.#congestion = undefined;
      if (this.congested) this.terminate('congested');
    }, this.#limits.congestionTimeout);
  }

  /**
   * Called by ws as each message sent leaves this process for the kernel (or fails to): the message
   * that went past the limit among them, so the hold is released as soon as the peer has read enough.
   */
  readonly #flushed = (): void => {
    if (!this.#heldForCongestion || this.congested) return;
    this.#heldForCongestion = false;
    // Read again: congestionTimeout counts afresh from the next time it stops reading.
    clearTimeout(this.#congestion);
    this.#congestion = undefined;
    // Its pong to a ping sent before the hold waits unread: a new interval to answer in.
    this.#answered = true;
    this.release();
  };

  /**
   * No pong since the last ping means the peer, or the path to it, is gone. Not judged while the
   * peer is held for congestion: its pong is among what is not read, and congestionTimeout judges it.
   */
  #ping(): void {
    if (!this.open || this.#heldForCongestion) return;
    if (!this.#answered) {
      this.terminate('ping unanswered');
      return;
    }
    this.#answered = false;
    this.#socket.ping();
  }
}

/** The bytes of a received message, as ws hands them over. */
export function byteLengthOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data.byteLength;
}

export function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
