/**
 * The schemas in the caller's process, loaded on first need. Importing the executor loads no zod:
 * zod and the protocol's schemas were about half of what that import cost (docs/pool.md, "Cold
 * start"), paid by every process that runs one program (the `run` command) or constructs its
 * executor at start before its first child was even spawned. The messages and requests of a run's
 * common path are decided by hot checks (pool/messages/wire.ts, the protocol's hot-messages.ts: an
 * execution, its tool calls, console lines and result, and a child's heartbeat answers), so a
 * caller whose runs stay on it never loads zod at all; what only a schema decides (a child's
 * `snapshot`, an outbound response, `hostWait` and `handlesClosed`, a request or message no hot
 * check takes) waits for the load, once.
 */
import type * as Protocol from '@supolka/codemode-protocol';
import { decideOnDemand, onDemand } from '@supolka/codemode-protocol/wire';
import type * as Table from './table.ts';
import type { DecodedPoolMessage } from './wire.ts';

export interface Schemas {
  /** The protocol's main entry: its schemas and the validation built on them. */
  readonly protocol: typeof Protocol;
  /** The pool's message table with its schemas. */
  readonly table: typeof Table;
}

/** Both together, loaded on first need (the protocol's on-demand.ts). */
const schemas = onDemand(async (): Promise<Schemas> => {
  const [protocol, table] = await Promise.all([import('@supolka/codemode-protocol'), import('./table.ts')]);
  return { protocol, table };
});

/** The schemas, loading them on the first call; a load that failed is tried again by the next call. */
export function loadSchemas(): Promise<Schemas> {
  return schemas.load();
}

/**
 * Runs `use` with the schemas: in this call when they are loaded, so a caller's order of calls is
 * kept once they are; after the load otherwise.
 */
export function withSchemas<T>(use: (schemas: Schemas) => T): T | Promise<T> {
  return schemas.loaded !== undefined ? use(schemas.loaded) : schemas.load().then(use);
}

/**
 * A message no hot check accepted, decided by the table's schemas; a load that failed is this
 * message's fault, said as such, never a throw out of the channel.
 */
export function validatePoolMessageOnDemand(
  value: unknown,
): DecodedPoolMessage | Promise<DecodedPoolMessage> {
  return decideOnDemand(schemas, (loaded) => loaded.table.validatePoolMessage(value));
}
