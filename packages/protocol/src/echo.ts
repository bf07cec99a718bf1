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
 * `text` within ECHO_LIMIT characters: itself when short enough, else its start, an ellipsis, and
 * how long it was. The cut never splits a surrogate pair.
 */
export function echo(text: string): string {
  if (text.length <= ECHO_LIMIT) return text;
  const code = text.charCodeAt(ECHO_LIMIT - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? ECHO_LIMIT - 1 : ECHO_LIMIT;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/** `'a', 'b'` for the names given, each echoed, at most ECHO_LIST_LIMIT of them, then `and N more`. */
export function echoList(names: readonly string[]): string {
  const shown = names.slice(0, ECHO_LIST_LIMIT).map((name) => `'${echo(name)}'`);
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
