/**
 * @supolka/codemode-executor/serving: what a process that serves executions to remote callers needs
 * beyond the library, for this project's own server (@supolka/codemode-server) and MCP bridge
 * (@supolka/codemode-mcp). Both depend on this package and never the other way round, so the pieces
 * they share, and the executor internals they serve through, are exported here rather than copied:
 * among them the bridge's declarations, safe text and schema checks, which describeTools shares,
 * and the trusted cache folder the bridge keeps its upstreams' eras in (cache/trusted-directory.ts).
 * It follows the package's version like the root entry; it loads no isolate.
 */
export { cacheFolder } from '../cache/cache-option.ts';
export { MCP_ERAS_CACHE_FOLDER } from '../cache/cache-root.ts';
export { openTrustedDirectory, type TrustedDirectory } from '../cache/trusted-directory.ts';
export { outcomeOf } from '../executor/observer.ts';
export { currentContext, type NestingFrame, withNestingCapacity } from '../pool/nested-executions.ts';
export type { OwnEndpoint } from '../sandbox/outbound/address-policy.ts';
export { threadModule } from '../sandbox/threads/deadline-worker.ts';
export {
  DEPTH_LIMIT,
  DESCRIPTION_LIMIT,
  docComment,
  LITERAL_LIMIT,
  NAME_LIMIT,
  NODE_BUDGET,
  namespaceDeclaration,
  schemaToType,
  TOOL_LIMIT,
  type ToolShape,
  TYPE_LIMIT,
  toolDeclaration,
} from '../tool-schemas/declarations.ts';
export { cutText, isPlainAscii, safeText } from '../tool-schemas/safe-text.ts';
export {
  problemsText,
  SchemaCheck,
  type SchemaProblem,
  type SchemaVerdict,
  VALIDATION_TIMEOUT,
} from '../tool-schemas/schema-check.ts';
export { packagesLine } from '../tool-schemas/texts.ts';
export { bearerToken, isLoopback, MIN_TOKEN_LENGTH, tokenMatches } from './auth.ts';
export { DEFAULT_HELLO_TIMEOUT, DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS } from './defaults.ts';
export {
  DURABLE_KEYS_ENV,
  DURABLE_KEYS_FILE_ENV,
  DurableKeysSourceError,
  parseDurableKeys,
  readDurableKeys,
} from './durable-keys.ts';
export { notLoopbackServeMessage, originRefusedMessage, tooManyUnauthenticatedMessage } from './texts.ts';
export { readToken, TOKEN_ENV, TOKEN_FILE_ENV, TokenSourceError } from './token.ts';
