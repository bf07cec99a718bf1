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
 * Characters of a pool child's own explanation the pool repeats: the fault that answers a
 * heartbeat (why the child cannot serve, which the pool keeps and puts in every execution it then
 * refuses) and a fault outside any conversation (in the WORKER_LOST error of the child's run).
 * The child's own texts are a sentence or two; a child whose host code was taken over could send
 * megabytes.
 */
export const REASON_ECHO_LIMIT = 1024;

/**
 * `text` within `limit` characters (ECHO_LIMIT unless given): itself when short enough, else its
 * start, an ellipsis, and how long it was. The cut never splits a surrogate pair.
 */
export function echo(text: string, limit = ECHO_LIMIT): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/** `'a', 'b'` for the names given, each echoed, at most ECHO_LIST_LIMIT of them, then `and N more`. */
export function echoList(names: readonly string[]): string {
  const shown = names.slice(0, ECHO_LIST_LIMIT).map((name) => `'${echo(name)}'`);
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
