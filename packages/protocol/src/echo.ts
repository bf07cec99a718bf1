/**
 * What an error text repeats of the input it refuses, bounded. A refusal names the field, key or
 * message type that was wrong, and those come from whoever sent the message: a client, or a pool
 * child, which runs hostile code. Repeated whole, a type or a key of ten megabytes made the fault
 * as large as the message (up to PAYLOAD_LIMIT), and a pool puts a child's refused message into
 * the WORKER_LOST error of the execution it served.
 */

/** Characters of a name a refusal repeats before it cuts it. */
export const ECHO_LIMIT = 64;

/** Names a refusal lists before it counts the rest. */
export const ECHO_LIST_LIMIT = 5;

/**
 * Characters of what a pool child said that the pool repeats: the fault that answers a heartbeat
 * (why the child cannot serve, which the pool keeps and puts in every execution it then refuses),
 * and every reason the pool ends a child for breaking the protocol, which often quotes what the
 * child sent and reaches the WORKER_LOST error of its run. The child's own texts are a sentence or
 * two; a child whose host code was taken over could send megabytes.
 */
export const REASON_ECHO_LIMIT = 1024;

/**
 * `text` itself when it has at most `limit` UTF-16 units (ECHO_LIMIT unless given), else its first
 * `limit` units (one fewer where the cut would split a surrogate pair), an ellipsis, and how long it
 * was. The cut is a copy: V8 keeps a slice of 13 or more units as a view that holds the whole
 * string it was cut from, so a kept refusal of a 4 MB name would keep the 4 MB.
 */
export function echo(text: string, limit = ECHO_LIMIT): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
  return `${detached(text.slice(0, end))}… (${text.length} characters)`;
}

/**
 * A copy of `text` that refers to no other string. Prepending a character makes a concatenation,
 * which V8 flattens into a string of its own when it is sliced; the slice then views that copy.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1);
}

/** `'a', 'b'` for the names given, each echoed, at most ECHO_LIST_LIMIT of them, then `and N more`. */
export function echoList(names: readonly string[]): string {
  const shown = names.slice(0, ECHO_LIST_LIMIT).map((name) => `'${echo(name)}'`);
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
