/**
 * A client's message decoded by the protocol's hot checks when they decide it, and by its schemas,
 * loaded on first need, when they do not. Importing the protocol's main entry loads zod and every
 * schema, which was about half of what starting `serve` cost (docs/server.md, "Cold start"), and
 * the messages of a common connection never need them: its hello, executes, tool-call replies and
 * cancels are decided by hot checks (the protocol's hot-messages.ts), each returning exactly what
 * its schema returns or nothing. What they leave undecided (a malformed message, an outbound reply,
 * an invoke, a resume) waits for one import() of the schemas, which accept or refuse it in the
 * words decodeMessage always used.
 */
import {
  type Decoded,
  decideOnDemand,
  decodeHotMessage,
  type MessageScan,
  onDemand,
  PAYLOAD_LIMIT,
} from '@supolka/codemode-protocol/wire';

/** The protocol's main entry, with its schemas, loaded on first need (the protocol's on-demand.ts). */
const schemas = onDemand(() => import('@supolka/codemode-protocol'));

/**
 * What decodeMessage answers for `text`: in this call when a hot check decides it or the schemas
 * are loaded, after their load otherwise. A load that failed is this message's fault, said as
 * such. Never throws, and the promise never rejects.
 */
export function decodeOnDemand(
  text: string,
  limit: number = PAYLOAD_LIMIT,
  scan?: MessageScan,
): Decoded | Promise<Decoded> {
  const decoded = decodeHotMessage(text, limit, scan);
  if (decoded.ok !== undefined) return decoded;
  const { value } = decoded;
  return decideOnDemand(schemas, (protocol) => protocol.validateMessage(value));
}
