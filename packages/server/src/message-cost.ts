/**
 * What a message costs the server's heap once decoded and held, estimated from its text before
 * anything parses it (scanMessage, in the protocol package), so the request budget admits or
 * refuses the cost itself and never a decoded value it has not admitted.
 *
 * The weights are upper bounds measured on V8 (Node 24.22.3) with heapUsed after a forced
 * collection, for the value parsed from the text and the message encoded again for the child
 * (the pool keeps that copy until the run settles), through JSON.parse and through the codec's
 * reviver, whichever cost more:
 *
 * - each byte: 3, its decoded characters (one heap byte per UTF-8 byte at most) and the text or its
 *   copy (two bytes a character once one character passes Latin-1);
 * - an object: 72 (measured 64: 56 for `{}` and its slot in the parent);
 * - an array: 64 (measured 48 with one element's backing store; 40 for `[]`);
 * - a member: 176 (measured 143 for objects of one distinct key each through the reviver, where
 *   every object takes a map of its own; 8 when the keys repeat);
 * - a string: 32 (its header, rounding and slot);
 * - a number: 56 (a heap number and its slot, 24, plus `1e20` spelled out again as 21 characters,
 *   two bytes each);
 * - true, false, null: 8 (a slot).
 *
 * For text and code the estimate is three times the size, as before; for dense records it is
 * about four times what they really take, the price of one weight per member whatever its keys.
 */
import { type MessageScan, PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';

export const COST_PER_BYTE = 3;
export const COST_PER_OBJECT = 72;
export const COST_PER_ARRAY = 64;
export const COST_PER_MEMBER = 176;
export const COST_PER_STRING = 32;
export const COST_PER_NUMBER = 56;
export const COST_PER_LITERAL = 8;

/**
 * The most one message may cost: a full PAYLOAD_LIMIT of text (96 MiB) with room for 32 MiB of
 * structure. A message past it is refused before it is decoded, whatever the budget holds.
 */
export const MESSAGE_COST_LIMIT = 4 * PAYLOAD_LIMIT;

/** The estimated heap cost of a message of `bytes` (as received) that `scan` counted. */
export function messageCost(scan: MessageScan, bytes: number): number {
  return (
    COST_PER_BYTE * bytes +
    COST_PER_OBJECT * scan.objects +
    COST_PER_ARRAY * scan.arrays +
    COST_PER_MEMBER * scan.members +
    COST_PER_STRING * (scan.strings - scan.members) +
    COST_PER_NUMBER * scan.numbers +
    COST_PER_LITERAL * scan.literals
  );
}
