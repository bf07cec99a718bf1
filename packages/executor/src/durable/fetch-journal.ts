/**
 * What the journal keeps of a durable run's fetch requests (docs/durable.md, "Fetch"), outside the
 * session that orders them: the hash a resumed request is compared by, the answer a request still
 * in flight at the pause is journaled with, the bound on the body bytes a journal holds, and how
 * bodies travel in a token: the token's JSON holds each body as a range of its binary part, so the
 * bytes are never written as base64 inside JSON and then base64 again around it.
 */

import type { HttpRequest } from '@supolka/codemode-protocol/wire';
import { nodeCrypto } from '../sandbox/node-crypto.ts';
import type { FetchEntry, FetchSettlement } from './journal.ts';
import { MAX_TOKEN_SIZE } from './limits.ts';

/**
 * Body bytes one journal may hold: what base64url fits into MAX_TOKEN_SIZE. A run whose fetches
 * read more keeps running; if it pauses, its journal cannot be sealed and the pause is an error.
 */
export const FETCH_BODY_JOURNAL_LIMIT = Math.floor((MAX_TOKEN_SIZE * 3) / 4);

/**
 * The frame a request still in flight when the run paused is journaled with: workerd's lost
 * connection, which a program must handle anyway. A resume never sends the request again, since
 * whether the server acted on it is unknown.
 */
export const LOST_FETCH_FRAME = JSON.stringify(['thrown', 'Network connection lost.', 'Error']);

/** The request's method, URL, headers, redirect mode and body, hashed: what a resumed request must repeat. */
export function requestHash(request: HttpRequest): string {
  const hash = nodeCrypto()
    .createHash('sha256')
    .update(JSON.stringify([request.method, request.url, request.headers, request.redirect ?? 'follow']));
  hash.update('\0');
  if (request.body !== null) hash.update(request.body);
  return hash.digest('base64url');
}

/** A fetch settlement as a token's JSON holds it: the body as [offset, length] in the token's bytes. */
interface PackedSettlement extends Omit<FetchSettlement, 'body'> {
  readonly body?: readonly [number, number];
}

export interface PackedFetch {
  readonly request: string;
  readonly settled?: PackedSettlement;
}

/** The fetches with their bodies moved into one run of bytes, each body named by its range. */
export function packBodies(fetches: readonly FetchEntry[]): { fetches: PackedFetch[]; bytes: Uint8Array } {
  let length = 0;
  for (const entry of fetches) length += entry.settled?.body?.byteLength ?? 0;
  const bytes = new Uint8Array(length);
  let offset = 0;
  const packed = fetches.map(({ request, settled }): PackedFetch => {
    if (settled === undefined) return { request };
    const { body, ...rest } = settled;
    if (body === undefined) return { request, settled: rest };
    bytes.set(body, offset);
    const range: [number, number] = [offset, body.byteLength];
    offset += body.byteLength;
    return { request, settled: { ...rest, body: range } };
  });
  return { fetches: packed, bytes };
}

/**
 * The fetches of a token's state with their bodies read back out of its bytes, or undefined when
 * they have another shape or a range falls outside the bytes.
 */
export function unpackBodies(fetches: unknown, bytes: Uint8Array | undefined): FetchEntry[] | undefined {
  if (!Array.isArray(fetches)) return undefined;
  const all = bytes ?? new Uint8Array(0);
  const out: FetchEntry[] = [];
  for (const entry of fetches) {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { request, settled } = entry as { request?: unknown; settled?: unknown };
    if (typeof request !== 'string') return undefined;
    if (settled === undefined) {
      out.push({ request });
      continue;
    }
    if (typeof settled !== 'object' || settled === null) return undefined;
    const { body, ...rest } = settled as { body?: unknown } & FetchSettlement;
    if (body === undefined) {
      out.push({ request, settled: rest });
      continue;
    }
    if (!Array.isArray(body) || body.length !== 2) return undefined;
    const [offset, length] = body as unknown[];
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length)) return undefined;
    const start = offset as number;
    const end = start + (length as number);
    if (start < 0 || end < start || end > all.byteLength) return undefined;
    out.push({ request, settled: { ...rest, body: all.subarray(start, end) } });
  }
  return out;
}
