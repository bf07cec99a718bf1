/**
 * The versions of the wire protocol this package speaks. The hello negotiates one: the client
 * states the newest it speaks, the server answers with the newest both speak, and a peer that
 * speaks none of this package's versions is refused with a fault naming them (docs/protocol.md,
 * "Versions"). Bump PROTOCOL_VERSION when a message changes shape in a way an older peer would
 * misread, or for something only a newer peer may ask for.
 *
 * 1: everything before the live console.
 * 2: a client may ask for an execution's console lines as they are written (`streamConsole` on
 *    `execute`, answered with `console` messages).
 * 3: a `cancel` may carry the caller's `reason`, which the cancelled envelope's error repeats. A
 *    server of version 2 refuses a cancel with a key it does not know, so a client sends it only
 *    where version 3 was agreed. The result envelope gains the failed tool call's `errorProvider`,
 *    `errorTool` and `errorAt`, a thrown value's `errorJson`, a `hint` and `notes`, which a server
 *    leaves out for a client of an older version (its schema is strict), and the execute request
 *    gains `consoleFormat`, which a server of version 2 refuses as a field it does not know.
 *    Durable runs (docs/durable.md, "Over the wire"): the request's `durable`, the envelope's
 *    `paused` and its durable codes, a tool call's `durable` context and a reply's `paused`, and
 *    the `resume`, `discard` and `discarded` messages. A server refuses durability to a client of
 *    an older version, so no such client ever meets a pause.
 */
export const PROTOCOL_VERSION = 3;

/** The oldest version this package still speaks: a version 1 peer gets exactly version 1. */
export const MIN_PROTOCOL_VERSION = 1;

/** The first version with the live console. */
export const CONSOLE_PROTOCOL_VERSION = 2;

/** The first version whose `cancel` carries a reason. */
export const CANCEL_REASON_PROTOCOL_VERSION = 3;

/**
 * The first version whose result envelope may carry errorProvider, errorTool, errorAt, errorJson,
 * hint and notes (DETAILS_FIELDS), and whose execute request may carry consoleFormat.
 */
export const DETAILS_PROTOCOL_VERSION = 3;

/** The first version with durable runs: a server refuses `durable`, `resume` and `discard` to an older client. */
export const DURABLE_PROTOCOL_VERSION = 3;

/** The version two peers speak, given the newest the other side states; undefined when they share none. */
export function agreedVersion(stated: number): number | undefined {
  if (stated < MIN_PROTOCOL_VERSION) return undefined;
  return Math.min(stated, PROTOCOL_VERSION);
}
