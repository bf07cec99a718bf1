/** Building blocks the message schemas share. */
import { z } from 'zod';
import { MAX_DELAY } from '../limits.ts';

/** Bytes on the wire: a Uint8Array (a Node Buffer is one too), as the codec decodes binary values. */
export const BytesSchema = z.custom<Uint8Array>((value) => value instanceof Uint8Array, {
  error: 'must be bytes (a Uint8Array)',
});

/** HTTP header list, in order, repeated names allowed. */
export const HeaderPairsSchema = z.array(z.tuple([z.string(), z.string()]), {
  error: 'must be a list of [name, value] string pairs',
});

/** An identifier a peer picks for one conversation (an execution, an invocation) on a connection. */
export const MessageIdSchema = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(128, { error: 'must be at most 128 characters' });

/** A whole number of milliseconds a 32-bit timer can wait. */
export const MillisecondsSchema = z
  .number({ error: 'must be a number of milliseconds' })
  .int({ error: 'must be a whole number of milliseconds' })
  .min(1, { error: 'must be at least 1 ms' })
  .max(MAX_DELAY, { error: `must be at most ${MAX_DELAY} ms` });
