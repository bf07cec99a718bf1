/** Building blocks the message schemas share. */
import { z } from 'zod';
import { HEADER_LIMIT, ID_LIMIT, MAX_DELAY } from '../limits.ts';

/** Bytes on the wire: a Uint8Array (a Node Buffer is one too), as the codec decodes binary values. */
export const BytesSchema = z.custom<Uint8Array>((value) => value instanceof Uint8Array, {
  error: 'must be bytes (a Uint8Array)',
});

/** HTTP header list, in order, repeated names allowed. */
export const HeaderPairsSchema = z
  .array(z.tuple([z.string(), z.string()]), { error: 'must be a list of [name, value] string pairs' })
  .max(HEADER_LIMIT, { error: `must hold at most ${HEADER_LIMIT} header pairs` });

/**
 * A record of at most `limit` entries. zod checks a record's size only after it has parsed every
 * entry, reporting one issue per bad one, so the count is checked first and stops the parse.
 */
export function boundedRecord<Value extends z.ZodType>(value: Value, limit: number, error: string) {
  return z
    .unknown()
    .check(
      z.refine((input) => typeof input !== 'object' || input === null || Object.keys(input).length <= limit, {
        error: `must hold at most ${limit} entries`,
        abort: true,
      }),
    )
    .pipe(z.record(z.string(), value, { error }));
}

/** An identifier a peer picks for one conversation (an execution, an invocation) on a connection. */
export const MessageIdSchema = boundedId();

/**
 * The id of a retained execution (an envelope's `executionId`), which invoke and closeHandles name:
 * a UUID, prefixed by the server's instance and a dot when it has one.
 */
export const ExecutionIdSchema = boundedId();

/** An id of 1 to ID_LIMIT characters: the rule both kinds of id follow, with the same words. */
function boundedId() {
  return z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(ID_LIMIT, { error: `must be at most ${ID_LIMIT} characters` });
}

/** A whole number of milliseconds a 32-bit timer can wait. */
export const MillisecondsSchema = z
  .number({ error: 'must be a number of milliseconds' })
  .int({ error: 'must be a whole number of milliseconds' })
  .min(1, { error: 'must be at least 1 ms' })
  .max(MAX_DELAY, { error: `must be at most ${MAX_DELAY} ms` });
