/**
 * The `modules` option, checked when the executor is constructed without loading the schemas
 * (docs/pool.md, "Cold start": importing and constructing the executor loads no zod). The map is
 * read as the schema's record reads it (own string keys, `__proto__` left out, an object of no
 * prototype or a plain one), each entry by the fast half of the entry's schema (the protocol's
 * checkModuleEntry) as the schema's object reads it (a key set to undefined is absent), and a
 * refusal is worded in the schema's rule texts, naming the first module at fault.
 * test/executor/modules-option.test.ts holds this to the schema's verdicts.
 */
import {
  checkModuleEntry,
  formatPath,
  MODULE_ENTRY_RULE,
  MODULE_LIMIT,
  MODULE_MAP_RULE,
  MODULE_SOURCE_LIMIT,
  MODULE_SOURCE_LIMIT_RULE,
  type ModuleMap,
} from '@supolka/codemode-protocol/wire';

/** The map as the schema would return it, or the text of why it is none. */
export function checkModulesOption(
  value: unknown,
): { readonly modules: ModuleMap } | { readonly fault: string } {
  if (!isRecord(value)) return { fault: MODULE_MAP_RULE };
  // Own keys only, as the schema's record reads them: none inherited from a changed Object.prototype.
  const names = Object.keys(value).filter((name) => name !== '__proto__');
  if (names.length > MODULE_LIMIT) return { fault: `must hold at most ${MODULE_LIMIT} entries` };
  const modules: ModuleMap = {};
  for (const name of names) {
    const given = (value as Record<string, unknown>)[name];
    const entry = checkModuleEntry(asTheSchemaReads(given));
    if (entry === undefined) return { fault: `${formatPath([name])} ${entryFault(given)}` };
    modules[name] = entry;
  }
  return { modules };
}

/**
 * An entry as the schema's object reads it, where that differs from what the fast check reads: its
 * own keys only, one set to undefined as absent (an optional key), in an object of no prototype (so
 * no key of a changed Object.prototype is seen). Text, and anything the schema refuses, as it is.
 */
function asTheSchemaReads(entry: unknown): unknown {
  if (!isRecord(entry)) return entry;
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(entry)) {
    const field = (entry as Record<string, unknown>)[key];
    if (field !== undefined) copy[key] = field;
  }
  return copy;
}

/**
 * An object of Object.prototype or of none with no symbol keys, as the schema's record and object
 * take one: the record refuses an array, a class instance or a symbol key.
 */
function isRecord(value: unknown): value is object {
  return (
    typeof value === 'object' &&
    value !== null &&
    (Object.getPrototypeOf(value) === null || Object.getPrototypeOf(value) === Object.prototype) &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

/** Source past its limit is said as such; any other fault is the rule of an entry. */
function entryFault(entry: unknown): string {
  const sources =
    typeof entry === 'object' && entry !== null
      ? [(entry as Record<string, unknown>).js, (entry as Record<string, unknown>).cjs]
      : [entry];
  return sources.some((source) => typeof source === 'string' && source.length > MODULE_SOURCE_LIMIT)
    ? MODULE_SOURCE_LIMIT_RULE
    : MODULE_ENTRY_RULE;
}
