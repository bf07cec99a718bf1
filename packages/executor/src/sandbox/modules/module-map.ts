/**
 * The module map of one request, keyed by canonical name, and the kind each entry compiles as.
 * What an entry's kind compiles to is module-source.ts: that needs the CommonJS facade (cjs.ts),
 * which reads the kinds from here, so with both halves in one file the two would import each other.
 */
import { type ModuleEntry, ModuleKeyCollisionError, type ModuleMap } from '@supolka/codemode-protocol/wire';
import { normalizeSpecifier } from '../resolver.ts';

export type NormalizedModuleMap = ReadonlyMap<string, ModuleEntry>;

/** Normalizes every key; a second key that lands on a name already taken is a collision. */
export function buildModuleMap(modules: ModuleMap | undefined): NormalizedModuleMap {
  const map = new Map<string, ModuleEntry>();
  const spellings = new Map<string, string>();
  for (const key of Object.keys(modules ?? {})) {
    const name = normalizeSpecifier(key);
    const earlier = spellings.get(name);
    if (earlier !== undefined) throw new ModuleKeyCollisionError(earlier, key, name);
    spellings.set(name, key);
    map.set(name, (modules as ModuleMap)[key] as ModuleEntry);
  }
  return map;
}

export type ModuleKind = 'js' | 'cjs' | 'json' | 'text' | 'data';

/** The kind an entry compiles as: a bare string is ES module source, then js, cjs, json, text, data. */
export function moduleKind(entry: ModuleEntry): ModuleKind | undefined {
  if (typeof entry === 'string') return 'js';
  for (const kind of ['js', 'cjs', 'json', 'text', 'data'] as const) {
    // Object.hasOwn, so a map entry can never resolve to a member of Object.prototype.
    if (Object.hasOwn(entry, kind) && entry[kind] !== undefined) return kind;
  }
  return undefined;
}
