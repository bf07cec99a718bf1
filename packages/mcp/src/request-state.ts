/**
 * The `requestState` an approval on the current revision (2026-07-28) hands the client: which of
 * the paused run's pending calls were asked about, and the sealed durable token (or, when the token
 * would not fit, a reference to it in the journal store). The client echoes it with its answers,
 * so on the way back it is whatever the client sent: read here under bounds before anything else
 * sees it, and every refusal a sentence, never a throw the handler did not expect.
 *
 * Nothing in it needs its own seal. The token is AES-GCM sealed and bound to the request, the
 * client's identity and the call's arguments (approval-rounds.ts, the principal); a changed token
 * is refused by the executor before anything runs. The pending list only says which sequences to
 * answer and which were asked: a changed sequence is refused by the executor (answers must be one
 * per pending call), a call marked asked that was not is refused (a call whose outcome is unknown
 * cannot be performed), and a call marked not asked is answered with an error, as a decline is.
 *
 *   cma1.<sequence><a|u>,....t<token>     or     cma1.<sequence><a|u>,....r<reference>
 */
import { IN_FLIGHT_CALL_LIMIT } from '@supolka/codemode-protocol';

/** The most a requestState may be, going out and coming back: the specification's bound. */
export const REQUEST_STATE_LIMIT = 1024 * 1024;

const PREFIX = 'cma1.';

/** One pending call of the paused run: asked (an approval question) or of unknown outcome. */
export interface PendingApproval {
  readonly sequence: number;
  readonly asked: boolean;
}

export type RequestState =
  | { readonly pending: readonly PendingApproval[]; readonly token: string }
  | { readonly pending: readonly PendingApproval[]; readonly reference: string };

/** A reference into the journal store: 128 random bits, base64url. */
export const REFERENCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;

const PENDING_PATTERN = /^(\d{1,9})([au])$/;

export function encodeRequestState(state: RequestState): string {
  const pending = state.pending.map((call) => `${call.sequence}${call.asked ? 'a' : 'u'}`).join(',');
  const tail = 'token' in state ? `t${state.token}` : `r${state.reference}`;
  return `${PREFIX}${pending}.${tail}`;
}

/**
 * The state the client echoed, or the sentence saying why it is not one. The length is checked
 * before anything reads the text, the pending list before the token is looked at.
 */
export function decodeRequestState(text: unknown): RequestState | string {
  if (typeof text !== 'string') return 'it is not a string';
  if (text.length > REQUEST_STATE_LIMIT) return `it is longer than ${REQUEST_STATE_LIMIT} characters`;
  if (!text.startsWith(PREFIX)) return 'it is not one this bridge made';
  const dot = text.indexOf('.', PREFIX.length);
  if (dot === -1) return 'it is cut short';
  const list = text.slice(PREFIX.length, dot);
  const parts = list === '' ? [] : list.split(',', IN_FLIGHT_CALL_LIMIT + 1);
  if (parts.length === 0 || parts.length > IN_FLIGHT_CALL_LIMIT)
    return 'its list of pending calls is not one';
  const pending: PendingApproval[] = [];
  const seen = new Set<number>();
  for (const part of parts) {
    const found = PENDING_PATTERN.exec(part);
    if (found === null) return 'its list of pending calls is not one';
    const sequence = Number(found[1]);
    if (sequence < 1 || seen.has(sequence)) return 'its list of pending calls is not one';
    seen.add(sequence);
    pending.push({ sequence, asked: found[2] === 'a' });
  }
  const kind = text[dot + 1];
  const rest = text.slice(dot + 2);
  if (kind === 't' && rest !== '') return { pending, token: rest };
  if (kind === 'r' && REFERENCE_PATTERN.test(rest)) return { pending, reference: rest };
  return 'it is cut short';
}
