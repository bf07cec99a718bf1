/**
 * workerd's control channel: with `--control-fd=N` workerd writes one JSON object per line to
 * that descriptor, notably `{"event":"listen","socket":"<name>","port":<port>}` once a socket
 * listens. The suite binds its socket to port 0 and reads the real port here, so there is no
 * window between picking a free port and binding it.
 */
import { z } from 'zod';

export const ListenEventSchema = z.object({
  event: z.literal('listen'),
  socket: z.string(),
  port: z.number().int().min(1).max(65535),
});

export type ListenEvent = z.infer<typeof ListenEventSchema>;

/** Any other event (workerd also reports inspector sockets this way): recognised and ignored. */
const OtherEventSchema = z.object({ event: z.string() });

export type ControlMessage = { kind: 'listen'; listen: ListenEvent } | { kind: 'other'; event: string };

/** Parses one line of the control channel; a line that is not a control message is an error. */
export function parseControlLine(line: string): ControlMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error(`workerd wrote a control line that is not JSON: ${JSON.stringify(line)}`);
  }
  const listen = ListenEventSchema.safeParse(value);
  if (listen.success) return { kind: 'listen', listen: listen.data };
  const other = OtherEventSchema.safeParse(value);
  if (other.success && other.data.event !== 'listen') return { kind: 'other', event: other.data.event };
  throw new Error(`workerd wrote a control message of unknown shape: ${line}`);
}

/** Splits a byte stream into lines and hands each complete one on. */
export function lineSplitter(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString();
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line !== '') onLine(line);
      newline = pending.indexOf('\n');
    }
  };
}
