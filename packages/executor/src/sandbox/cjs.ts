/**
 * CommonJS modules of the map, each behind a self-contained ES module facade. A facade embeds every
 * cjs source of the map, so a nested require reaches any sibling, along with the require runtime
 * and the resolver as source text. The runtime follows Node where Node's behaviour is observable:
 * the cache entry is seeded before its factory runs (a circular require sees partial exports), a
 * throwing factory is evicted (the next require retries), top-level `this` is module.exports, and
 * require.resolve answers the resolved id or throws.
 *
 * Factory bodies inherit the strict mode of the ES module around them, where Node runs CommonJS
 * sloppy; and each facade owns its cache, so a module two facades require runs once per facade.
 */
import type { ModuleEntry } from '@supolka/codemode-protocol';
import { moduleKind, type NormalizedModuleMap } from './module-map.ts';
import { normalizeSpecifier, resolveSpecifier } from './resolver.ts';

/** The names require() can reach: entries whose kind is cjs (an entry with js as well resolves as js). */
function requireSpace(map: NormalizedModuleMap): [string, ModuleEntry][] {
  return [...map].filter(([, entry]) => moduleKind(entry) === 'cjs');
}

export function wrapCjs(name: string, map: NormalizedModuleMap): string {
  const factories = requireSpace(map)
    .map(
      ([id, entry]) =>
        `  [${JSON.stringify(id)}, function (exports, require, module, __filename, __dirname) {\n${(entry as { cjs: string }).cjs}\n}],`,
    )
    .join('\n');
  return `const normalizeSpecifier = ${normalizeSpecifier.toString()};
const resolveSpecifier = ${resolveSpecifier.toString()};
// A Map, because an object literal would route ids like __proto__ or toString through Object.prototype.
const factories = new Map([
${factories}
]);
const cache = new Map();
const makeRequire = (from) => {
  const resolve = (specifier) => {
    const id = resolveSpecifier(String(specifier), from, (candidate) => factories.has(candidate));
    if (!factories.has(id)) {
      const error = new Error("Cannot find module '" + specifier + "' from '" + from + "'");
      error.code = 'MODULE_NOT_FOUND';
      throw error;
    }
    return id;
  };
  const require = (specifier) => load(resolve(specifier));
  require.resolve = resolve;
  require.cache = cache;
  return require;
};
const load = (id) => {
    const cached = cache.get(id);
    if (cached !== undefined) return cached.exports;
    const module = { id, exports: {}, loaded: false };
    cache.set(id, module);
    const slash = id.lastIndexOf('/');
    try {
      factories.get(id).call(module.exports, module.exports, makeRequire(id), module, id, slash === -1 ? '' : id.slice(0, slash));
    } catch (error) {
      cache.delete(id);
      throw error;
    }
    module.loaded = true;
    return module.exports;
};
export default load(${JSON.stringify(name)});
`;
}
