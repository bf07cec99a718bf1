/**
 * CommonJS modules of the map, each behind an ES module facade. Every cjs source is compiled once
 * per run, in a factory module of its own (`export default function (exports, require, module, ...)`),
 * and one factories module gathers them into a Map; each facade imports that Map, so a nested
 * require reaches any sibling, and carries the require runtime and the resolver as source text.
 * The chapter's facade embedded every cjs source in every facade: host work and module text
 * quadratic in the map (200 facades over 1.6 MB of sources compiled 320 MB), and a source that
 * closed its wrapper wrote into its siblings' text, so brackets each source's nesting scan had
 * bounded added up across the map (docs/sandbox.md, "Deviations from the specification, and
 * why"). In a module of its own, a source that closes its wrapper is a syntax error of its own module.
 *
 * The runtime follows Node where Node's behaviour is observable: the cache entry is seeded before
 * its factory runs (a circular require sees partial exports), a throwing factory is evicted (the
 * next require retries), top-level `this` is module.exports, and require.resolve answers the
 * resolved id or throws.
 *
 * Factory bodies inherit the strict mode of the ES module around them, where Node runs CommonJS
 * sloppy; and each facade owns its cache, so a module two facades require runs once per facade.
 *
 * Beside its default (module.exports), a facade exports the names sources/cjs-exports.ts decided:
 * those the lexer found, read once the module has run, as Node does, and those the request's
 * imports asked for beyond them, which must then be in module.exports or the facade throws the
 * engine's words for a missing export.
 */
import type { ModuleEntry } from '@supolka/codemode-protocol/wire';
import { moduleKind, type NormalizedModuleMap } from './modules/module-map.ts';
import { normalizeSpecifier, resolveSpecifier } from './resolver.ts';
import type { FacadeNames } from './sources/cjs-exports.ts';

/** The module that gathers every factory of the map; only facades and factories import it. */
export const CJS_FACTORIES = 'codemode:cjs-factories';

/** The name the factory of cjs module `id` compiles under. */
export function cjsFactoryName(id: string): string {
  return `${FACTORY_PREFIX}${id}`;
}
const FACTORY_PREFIX = 'codemode:cjs-factory:';

/** The names require() can reach: entries whose kind is cjs (an entry with js as well resolves as js). */
function requireSpace(map: NormalizedModuleMap): [string, ModuleEntry][] {
  return [...map].filter(([, entry]) => moduleKind(entry) === 'cjs');
}

/** Whether `name` is a cjs module of the map, whose facade may import CJS_FACTORIES. */
export function isCjsModule(map: NormalizedModuleMap, name: string): boolean {
  const entry = map.get(name);
  return entry !== undefined && moduleKind(entry) === 'cjs';
}

/**
 * The source of `name` when it is CJS_FACTORIES or the factory of a cjs module of the map, with
 * the name it resolves its imports from and is reported under (a factory's is its module's id);
 * otherwise undefined.
 */
export function cjsInternal(
  name: string,
  map: NormalizedModuleMap,
): { source: string; as: string } | undefined {
  if (name === CJS_FACTORIES) {
    const space = requireSpace(map);
    const imports = space.map(
      ([id], index) => `import f${index} from ${JSON.stringify(cjsFactoryName(id))};`,
    );
    const entries = space.map(([id], index) => `  [${JSON.stringify(id)}, f${index}],`);
    // A Map, because an object literal would route ids like __proto__ or toString through Object.prototype.
    const source = `${imports.join('\n')}\nexport default new Map([\n${entries.join('\n')}\n]);\n`;
    return { source, as: name };
  }
  if (!name.startsWith(FACTORY_PREFIX)) return undefined;
  const id = name.slice(FACTORY_PREFIX.length);
  if (!isCjsModule(map, id)) return undefined;
  const body = (map.get(id) as { cjs: string }).cjs;
  return {
    source: `export default function (exports, require, module, __filename, __dirname) {\n${body}\n}\n`,
    as: id,
  };
}

/** The facade of cjs module `name`, exporting `names` beside its default. */
export function wrapCjs(name: string, names: FacadeNames = { found: [], asked: [] }): string {
  return `import factories from ${JSON.stringify(CJS_FACTORIES)};
const normalizeSpecifier = ${normalizeSpecifier.toString()};
const resolveSpecifier = ${resolveSpecifier.toString()};
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
const moduleExports = load(${JSON.stringify(name)});
export default moduleExports;
${namedExports(name, names)}`;
}

/**
 * The facade's named exports: each a const read from module.exports after the module ran (a
 * binding name of the facade's own, `named0`..., exported under the name, which may be any text).
 */
export function namedExports(name: string, { found, asked }: FacadeNames): string {
  if (found.length === 0 && asked.length === 0) return '';
  const lines: string[] = [];
  const exported: string[] = [];
  const bind = (exportName: string, read: string) => {
    const local = `named${exported.length}`;
    lines.push(`const ${local} = ${read}(${JSON.stringify(exportName)});`);
    exported.push(`${local} as ${JSON.stringify(exportName)}`);
  };
  lines.push('const found = (name) => (moduleExports == null ? undefined : moduleExports[name]);');
  for (const exportName of found) bind(exportName, 'found');
  if (asked.length > 0) {
    const missing = `"The requested module '" + ${JSON.stringify(name)} + "' does not provide an export named '" + name + "'"`;
    lines.push(
      `const asked = (name) => { if (moduleExports == null || !(name in Object(moduleExports))) throw new SyntaxError(${missing}); return moduleExports[name]; };`,
    );
    for (const exportName of asked) bind(exportName, 'asked');
  }
  lines.push(`export { ${exported.join(', ')} };`);
  return `${lines.join('\n')}\n`;
}
