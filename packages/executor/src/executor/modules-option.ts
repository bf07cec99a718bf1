/**
 * The `modules` option, checked when the executor is constructed without loading the schemas
 * (docs/pool.md, "Cold start": importing and constructing the executor loads no zod). The schema's
 * fast half (the protocol's checkModules) takes every map the schema takes from a caller's own
 * objects; what it leaves undecided is refused here in the schema's rule texts, naming the first
 * module at fault. test/executor/modules-option.test.ts holds this to the schema's verdicts.
 */
import {
  checkModuleEntry,
  checkModules,
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
  const modules = checkModules(plainCopy(value));
  return modules !== undefined ? { modules } : { fault: moduleMapFault(value) };
}

/**
 * A map with no prototype, as the schema's record reads it: copied into a plain object, which is
 * what the fast check reads. A module named `__proto__` is left out, as the schema's record leaves
 * it out (its assignment sets no key). Anything else is returned as it is.
 */
function plainCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    if (name !== '__proto__') copy[name] = (value as Record<string, unknown>)[name];
  }
  return copy;
}

function moduleMapFault(value: unknown): string {
  if (typeof value !== 'object' || value === null || !isRecordPrototype(Object.getPrototypeOf(value))) {
    return MODULE_MAP_RULE;
  }
  const names = Object.keys(value);
  if (names.length > MODULE_LIMIT) return `must hold at most ${MODULE_LIMIT} entries`;
  for (const name of names) {
    const entry = (value as Record<string, unknown>)[name];
    if (checkModuleEntry(entry) === undefined) return `${formatPath([name])} ${entryFault(entry)}`;
  }
  return MODULE_MAP_RULE;
}

/** A plain object's or none: the schema's record takes no array, class instance or other kind of object. */
function isRecordPrototype(prototype: unknown): boolean {
  return prototype === null || prototype === Object.prototype;
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
