/**
 * The channelAttackOnTool test hook (settings.ts): bytes a child writes straight to its channel's
 * descriptor, as a child whose host code went wrong, or was taken over, would. They bypass the
 * channel's own writer, so the framing the parent reads is whatever the attack says. Inert unless a
 * test set the hook.
 */
import { writeSync } from 'node:fs';
import { encodeMessage, IN_FLIGHT_CALL_LIMIT } from '@supolka/codemode-protocol/wire';
import { CHANNEL_FD } from '../channel.ts';
import { encodeFrame, FRAME_HEADER, FRAME_LIMIT } from '../frames.ts';
import type { PoolMessageOf } from '../messages/table.ts';
import { encodePoolMessage } from '../messages/wire.ts';

/** Valid tool calls the deaf-flood attack sends, never reading an answer. */
export const DEAF_FLOOD_CALLS = 10_000;

/** Valid tool calls the call-flood attack sends at once: far more than its sandbox lets a run have in flight. */
export const CALL_FLOOD_CALLS = 4 * IN_FLIGHT_CALL_LIMIT;

/** Valid tool calls the invalid-then-calls attack writes right after its invalid message. */
export const CALLS_AFTER_INVALID = 8;

/** Console lines of this many characters the console-flood attack sends, in messages of 100 lines. */
export const CONSOLE_FLOOD_LINE = 10_000;

/** The tool the flood attacks call. */
export const DEAF_FLOOD_TOOL = 'flood';

/** Characters of the type and the id the huge-type attack's message holds. */
export const HUGE_NAME = 4 * 1024 * 1024;

/** Bytes the trickle attack announces and then writes one at a time. */
export const TRICKLE_BYTES = 16 * 1024;

function header(length: number): Buffer {
  const bytes = Buffer.alloc(FRAME_HEADER);
  bytes.writeUInt32BE(length, 0);
  return bytes;
}

/** Writes all of bytes, waiting out a full pipe (the descriptor is non-blocking). */
function writeAll(bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(CHANNEL_FD, bytes, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      // The parent is not reading: wait for it without spinning a core.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** Writes `count` valid calls of DEAF_FLOOD_TOOL for run `id`, numbered clear of the run's own. */
function floodCalls(id: string, count: number): void {
  for (const frame of callFrames(id, count)) writeAll(frame);
}

/** `count` valid calls of DEAF_FLOOD_TOOL for run `id`, each a frame, numbered clear of the run's own. */
function callFrames(id: string, count: number): Buffer[] {
  const frames: Buffer[] = [];
  for (let call = 1_000_000; call < 1_000_000 + count; call++) {
    const message = {
      type: 'dispatch',
      id,
      call,
      provider: 'tools',
      tool: DEAF_FLOOD_TOOL,
      args: '[]',
    } as const;
    frames.push(encodeFrame(encodeMessage(message)));
  }
  return frames;
}

/** The snapshot the stray-snapshot attack sends, valid as a message: eight bytes no start hashes to. */
const STRAY_SNAPSHOT: PoolMessageOf<'snapshot'> = { type: 'snapshot', bytes: new Uint8Array(8) };

/** The fault the fault-heartbeats attack answers every later heartbeat with. */
export const HEARTBEAT_ATTACK_TEXT = 'this child says its engine cannot serve any more';

let heartbeatsFaulted = false;

/** Whether the fault-heartbeats attack ran: child-entry.ts then answers each heartbeat with a fault. */
export function faultsHeartbeats(): boolean {
  return heartbeatsFaulted;
}

/** `call-for:<run>` sends one valid tool call as run `<run>`, `fetch-for:<run>` one outbound request. */
export const CALL_FOR = 'call-for:';
export const FETCH_FOR = 'fetch-for:';

/**
 * What the channel's own writer may still have in flight when an attack runs: the start this child
 * handed on (about 1.3 MB, written as the parent reads it). An attack's raw bytes wait for it, or
 * they would cut into its frame.
 */
let inFlight: Promise<void> = Promise.resolve();

export function holdAttacksFor(written: Promise<void>): void {
  inFlight = written;
}

/** Runs the attack a tool call's first argument names, in run `id`; an unknown name writes nothing. */
export async function attackChannel(name: unknown, id: string): Promise<void> {
  await inFlight;
  // A call as another run: one whose handles closed, or one this child never had.
  if (typeof name === 'string' && name.startsWith(CALL_FOR)) {
    writeAll(callFrames(name.slice(CALL_FOR.length), 1)[0] as Buffer);
    return;
  }
  if (typeof name === 'string' && name.startsWith(FETCH_FOR)) {
    const request = { method: 'GET', url: 'https://stray.test/', headers: [], body: null };
    const message = { type: 'outbound', id: name.slice(FETCH_FOR.length), call: 1_000_000, request } as const;
    writeAll(encodeFrame(encodeMessage(message)));
    return;
  }
  switch (name) {
    case 'deaf-flood':
      // Valid tool calls of its own run as fast as the parent takes them, while its main thread,
      // held here for good, never reads an answer: what the parent writes back has nowhere to go.
      floodCalls(id, DEAF_FLOOD_CALLS);
      for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    case 'invalid-then-calls':
      // A message of no type, then valid tool calls, in one write: the parent reads them in one chunk.
      writeAll(
        Buffer.concat([header(15), Buffer.from('{"type":"nope"}'), ...callFrames(id, CALLS_AFTER_INVALID)]),
      );
      return;
    case 'console-flood': {
      // Console lines of its own run, past what its sandbox's capture holds: 2 MiB and more.
      const line = { level: 'log', text: 'x'.repeat(CONSOLE_FLOOD_LINE) } as const;
      for (let batch = 0; batch < 3; batch++) {
        writeAll(encodeFrame(encodeMessage({ type: 'console', id, lines: Array(100).fill(line) })));
      }
      return;
    }
    case 'call-flood':
      // Valid tool calls of its own run, past what its sandbox allows in flight, then on as usual.
      floodCalls(id, CALL_FLOOD_CALLS);
      return;
    case 'oversized':
      // A header announcing one byte past the limit, and nothing after it.
      writeAll(header(FRAME_LIMIT + 1));
      return;
    case 'garbage':
      // Text where a header belongs: its first four bytes announce some 1.2 GB.
      writeAll(Buffer.from('GET / HTTP/1.1\r\nHost: pool\r\n\r\n'));
      return;
    case 'not-utf8':
      writeAll(Buffer.concat([header(4), Buffer.from([0xff, 0xfe, 0xfd, 0xfc])]));
      return;
    case 'attachment-on-prepared':
      // An attachment (attachment.ts) after a message that has none.
      writeAll(encodeFrame('{"type":"prepared"}\n[1]'));
      return;
    case 'filled-attachment':
      // A tool call with its args both inside the message and after it: which would the parent read?
      writeAll(
        encodeFrame(
          `${encodeMessage({ type: 'dispatch', id, call: 1_000_000, provider: 'tools', tool: DEAF_FLOOD_TOOL, args: '[]' })}\n[1]`,
        ),
      );
      return;
    case 'not-a-message':
      writeAll(Buffer.concat([header(15), Buffer.from('{"type":"nope"}')]));
      return;
    case 'huge-type':
      // A message whose type and id are megabytes long: the parent's refusal repeats neither whole.
      writeAll(encodeFrame(JSON.stringify({ type: 'n'.repeat(HUGE_NAME), id: 'i'.repeat(HUGE_NAME) })));
      return;
    case 'huge-stray-fault':
      // A fault of megabytes answering nothing: the parent names it in the WORKER_LOST error of this run.
      writeAll(
        encodeFrame(JSON.stringify({ type: 'fault', code: 'INTERNAL', message: 'f'.repeat(HUGE_NAME) })),
      );
      return;
    case 'fault-heartbeats':
      // A healthy child that answers its next heartbeats with a fault, as if its engine had failed.
      heartbeatsFaulted = true;
      return;
    case 'huge-binary-tag':
      // A $binary tag of megabytes: the codec's refusal names the tag, and the parent names the refusal.
      writeAll(
        encodeFrame(
          `{"type":"fault","code":"INTERNAL","message":{"$binary":"${'b'.repeat(HUGE_NAME)}","base64":""}}`,
        ),
      );
      return;
    case 'huge-closed-reason':
      // A retained execution's end with a reason of megabytes, which the parent would keep.
      writeAll(
        encodeFrame(
          JSON.stringify({ type: 'handlesClosed', executionId: id, message: 'r'.repeat(HUGE_NAME) }),
        ),
      );
      return;
    case 'stray-snapshot':
      // Snapshot bytes from a program that took the child over: kept, the parent would hand them
      // to every child it spawns after.
      writeAll(encodeFrame(encodePoolMessage(STRAY_SNAPSHOT)));
      return;
    case 'trickle': {
      // A frame written a byte per write: the parent copies it into one growing buffer.
      writeAll(header(TRICKLE_BYTES));
      const byte = Buffer.from('x');
      for (let index = 0; index < TRICKLE_BYTES; index++) writeAll(byte);
      return;
    }
    case 'paused-journal':
      // The journal of a pause for its own run, which no tool of the parent's paused: for a run
      // that is not durable a message the pool never expects, for a durable one a pause nobody asked for.
      writeAll(
        encodeFrame(
          JSON.stringify({
            type: 'result',
            id,
            envelope: { logs: [] },
            journal: { journal: [], timers: [], fetches: [], loads: [], written: 0 },
          }),
        ),
      );
      return;
    case 'truncated':
      // A frame cut short by the end of the process.
      writeAll(Buffer.concat([header(100), Buffer.from('{"type":')]));
      process.exit(1);
  }
}
