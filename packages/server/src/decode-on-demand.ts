/**
 * A client's message decoded by the protocol's hot checks when they decide it, and by its schemas,
 * loaded on first need, when they do not. Importing the protocol's main entry loads zod and every
 * schema, which was about half of what starting `serve` cost (docs/server.md, "Cold start"), and
 * the messages of a common connection never need them: its hello, executes, tool-call replies and
 * cancels are decided by hot checks (the protocol's hot-messages.ts), each returning exactly what
 * its schema returns or nothing. What they leave undecided (a malformed message, an outbound reply,
 * an invoke, a resume) waits for one import() of the schemas, which accept or refuse it in the
 * words decodeMessage always used.
 *
 * Loaded with import(), never require(): a require() of a module another import() is loading
 * throws (ERR_REQUIRE_ESM_RACE_CONDITION), as the executor's pool/messages/schemas-on-demand.ts says.
 */
import type * as Protocol from '@supolka/codemode-protocol';
import {
  type Decoded,
  decodeHotMessage,
  type MessageScan,
  PAYLOAD_LIMIT,
} from '@supolka/codemode-protocol/wire';

let loading: Promise<typeof Protocol> | undefined;
let loaded: typeof Protocol | undefined;

/** The protocol's main entry, loaded on the first call; a load that failed is tried again by the next. */
function loadSchemas(): Promise<typeof Protocol> {
  loading ??= import('@supolka/codemode-protocol').then(
    (protocol) => {
      loaded = protocol;
      return protocol;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

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
  if (loaded !== undefined) return loaded.validateMessage(value);
  return loadSchemas().then(
    (protocol) => protocol.validateMessage(value),
    (error: unknown): Decoded => ({
      ok: false,
      fault: { code: 'INTERNAL', message: `The message schemas did not load: ${String(error)}` },
    }),
  );
}
