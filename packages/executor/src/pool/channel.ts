/**
 * The wire between the pool and a child. Every message is one of the pool's table (messages/table.ts:
 * the protocol's messages the two share, and the pool's own) carried as its codec text:
 * encodePoolMessage refuses one past PAYLOAD_LIMIT before it leaves, and the table's decode
 * measures, parses and validates it on arrival. The text is in the format a network transport
 * carries, so the pool and a remote client speak one format, but for a tool call's codec JSON,
 * which travels after its message instead of escaped inside it (attachment.ts).
 *
 * The text travels in frames (frames.ts) on a pipe of its own, the child's file descriptor 3: one
 * encode and one write to send, one UTF-8 read and one decode to receive. Node's IPC channel did the
 * same work twice over (a structured-clone serialization around the text, and its own framing) and
 * cost 70-190 µs a round trip here; the pipe is the floor a socket round trip sets. No IPC channel
 * is opened: nothing else crosses between the two processes.
 */
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { decodeChannelMessage, encodeChannelMessage, type SchemaPath } from './attachment.ts';
import { encodeFrame, FRAME_HEADER, FrameReader } from './frames.ts';
import type { PoolMessage } from './messages/table.ts';
import type { DecodedPoolMessage } from './messages/wire.ts';

/** The child's file descriptor of the channel. */
export const CHANNEL_FD = 3;

/** The exit code of a child whose parent's stream broke the framing: it can hear nothing more. */
export const FRAMING_EXIT = 3;

export interface ChannelEvents {
  /** A frame's message, decoded and validated, or the fault saying why it is not one. */
  received(decoded: DecodedPoolMessage): void;
  /** The byte stream broke the framing: the peer is not speaking the protocol; nothing more arrives. */
  violation(reason: string): void;
  /**
   * The peer closed its end (or the pipe failed): the side that lost it learns the rest elsewhere.
   * `cut` names a frame the end cut short; a peer that is gone is past answering for it.
   */
  closed(cut?: string): void;
}

export interface ChannelOptions {
  /**
   * Stop reading the peer while what this side wrote waits unread past the socket's high-water
   * mark, and read on once it drained. The parent sets it: every message it reads from a child may
   * make it write (a tool call's answer, many times its size), so a child that sends and never
   * reads would grow the parent's write buffer without bound. Held, the child's messages wait in
   * the pipe, its heartbeat answers with them, and supervision ends it as silent. The child does
   * not set it: two sides that both stopped reading while both wait to write would never resume.
   */
  readonly holdReadingOnBacklog?: boolean;
  /** Decides each message no hot check accepted (attachment.ts): received in order all the same. */
  readonly schemaPath: SchemaPath;
}

export class Channel {
  readonly #socket: Duplex;
  readonly #reader: FrameReader;
  readonly #holdReadingOnBacklog: boolean;
  #held = false;
  #lastReceivedBytes = 0;
  /**
   * Messages waiting on a schema path that answers later, and those behind them: delivered in
   * order. A broken frame or the stream's end is reported behind them too: they came first.
   */
  #backlog: Promise<void> | undefined;
  #waiting = 0;
  /** Its owner ended the peer (stopReading): nothing more is delivered, the backlog included. */
  #ownerStopped = false;

  constructor(socket: Duplex, events: ChannelEvents, options: ChannelOptions) {
    this.#socket = socket;
    this.#holdReadingOnBacklog = options.holdReadingOnBacklog === true;
    const deliver = (decoded: DecodedPoolMessage, bytes: number) => {
      this.#lastReceivedBytes = bytes;
      events.received(decoded);
    };
    this.#reader = new FrameReader({
      frame: (text, bytes) => {
        const decoded = decodeChannelMessage(text, options.schemaPath);
        if (this.#backlog === undefined && !(decoded instanceof Promise)) {
          deliver(decoded, bytes);
          return;
        }
        this.#waiting++;
        this.#backlog = (this.#backlog ?? Promise.resolve()).then(async () => {
          const settled = await decoded;
          if (--this.#waiting === 0) this.#backlog = undefined;
          // Its owner ended the peer meanwhile: nothing more is delivered, as from the reader. A
          // break or an end behind this message stopped the reader too, but not its owner: the
          // message came before it and is delivered.
          if (!this.#ownerStopped) deliver(settled, bytes);
        });
      },
      violation: (reason) => {
        // The stream cannot be read past a broken frame; reading on would only spend this process.
        socket.pause();
        this.#afterBacklog(() => {
          if (!this.#ownerStopped) events.violation(reason);
        });
      },
    });
    socket.on('data', (chunk: Buffer) => this.#reader.push(chunk));
    socket.on('end', () => {
      const cut = this.#reader.end();
      this.#afterBacklog(() => events.closed(cut));
    });
    // A write to a peer that died fails with EPIPE; its exit is reported by whoever watches it.
    socket.on('error', () => this.#afterBacklog(() => events.closed()));
  }

  /** Runs `report` once every message received before it was delivered: at once when none waits. */
  #afterBacklog(report: () => void): void {
    if (this.#backlog === undefined) report();
    else void this.#backlog.then(report, report);
  }

  /** The UTF-8 bytes of the message being delivered now (read while `received` runs), for metering. */
  get lastReceivedBytes(): number {
    return this.#lastReceivedBytes;
  }

  get open(): boolean {
    return this.#socket.writable && !this.#socket.destroyed;
  }

  /**
   * Encodes and sends one message. Throws PayloadTooLargeError past the limit, so the caller can
   * answer with a smaller message instead. A channel that closed meanwhile drops the message
   * quietly: the side that lost its peer learns it from the exit or close event, not here.
   */
  send(message: PoolMessage): number {
    return this.sendText(encodeChannelMessage(message));
  }

  /**
   * Sends text encodePoolMessage already produced; `flushed` runs once it left this process (or could
   * not). Answers the UTF-8 bytes of the message it wrote (0 on a closed channel), for metering.
   */
  sendText(text: string, flushed?: () => void): number {
    if (!this.open) {
      flushed?.();
      return 0;
    }
    const frame = encodeFrame(text);
    const below = this.#socket.write(frame, flushed);
    if (!below && this.#holdReadingOnBacklog) this.#holdReading();
    return frame.length - FRAME_HEADER;
  }

  /** Reads nothing more, the rest of a chunk being read included: its owner ended the peer. */
  stopReading(): void {
    this.#ownerStopped = true;
    this.#reader.stop();
    this.#socket.pause();
  }

  /** Whether reading is held until the peer drains what this side wrote. */
  get held(): boolean {
    return this.#held;
  }

  #holdReading(): void {
    if (this.#held) return;
    this.#held = true;
    this.#socket.pause();
    this.#socket.once('drain', () => {
      this.#held = false;
      // A stream that broke its framing stays paused: nothing past the break is read.
      if (!this.#reader.stopped) this.#socket.resume();
    });
  }

  /** Whether the pipe may keep this process's event loop alive. */
  setRef(ref: boolean): void {
    const handle = this.#socket as Partial<Pick<Socket, 'ref' | 'unref'>>;
    if (ref) handle.ref?.();
    else handle.unref?.();
  }
}

/** The child's end: the pipe its parent set up at CHANNEL_FD. */
export function openParentChannel(events: ChannelEvents, schemaPath: SchemaPath): Channel {
  return new Channel(new Socket({ fd: CHANNEL_FD, readable: true, writable: true }), events, { schemaPath });
}

/** The side a run or the memory guard sends through: the child's channel to its parent. */
export type MessageEndpoint = Pick<Channel, 'send' | 'sendText' | 'open'>;
