/**
 * The protocol's schemas, loaded on first use. The pool child imports the protocol's zod-free
 * entry and so holds no zod at rest (about 14 MB of resident memory, docs/pool.md, "Memory"); the
 * rare paths that check a value against a schema (a proxied fetch's response, a retained handler's
 * answer) load the package's main entry here, once. It shares its modules with the zod-free
 * entry, so every error class is the one the rest of the sandbox throws.
 */
type Protocol = typeof import('@supolka/codemode-protocol');

let loading: Promise<Protocol> | undefined;

export function protocolSchemas(): Promise<Protocol> {
  loading ??= import('@supolka/codemode-protocol');
  return loading;
}
