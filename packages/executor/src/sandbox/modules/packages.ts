/**
 * The packages a sandbox serves imports from (docs/packages.md): the bundle its configuration made
 * (src/packages/bundle.ts), and what the linker of a run needs of it.
 *
 * A program's bare import of a specifier a package offers (`zod`, `zod/mini`), when the request's
 * module map has no key of that name, resolves to a facade: a small ES module the sandbox writes,
 * which loads the specifier from its package's registry and exports what the specifier exports. The
 * registry is each package's one script, defined in the run's isolate the first time the run needs
 * the package (with the allowed packages it requires), through PACKAGES_SOURCE, which the isolate
 * runs once. Scripts, not modules: V8 consumes a script's code cache in this engine, and a module's
 * it does not (the moduleCodeCache probe), so a script is compiled once per process.
 *
 * An ES module specifier's facade exports its names as they are once loaded (a binding a library
 * reassigns later is not followed); `default` only when it has one. A CommonJS specifier's facade
 * is a cjs facade's (cjs.ts): module.exports as default, the names Node's lexer found, and those
 * the request's imports asked for, checked once loaded.
 */
import type ivm from 'isolated-vm';
import type { BundledPackage, BundledSubpath, PackageBundle } from '../../packages/bundle.ts';
import { namedExports } from '../cjs.ts';
import type { IsolateHandle } from '../isolate.ts';
import type { FacadeNames } from '../sources/cjs-exports.ts';
import { type CodeCache, codeCacheKey, compileScriptCached, compileScriptCachedSync } from './code-cache.ts';

/** The prefix of a facade's module name: `codemode:package/zod/mini` serves `zod/mini`. */
export const PACKAGE_PREFIX = 'codemode:package/';

/** Where the registry lives in an isolate: a symbol, so no program name can collide with it. */
const REGISTRY_KEY = "Symbol.for('codemode.packages')";

/**
 * Run once per isolate before any package script: a registry of package factories, defined
 * non-writable and non-configurable, so a program can load an allowed package through it (as an
 * import would) but cannot replace it. A factory runs the first time one of its specifiers is
 * loaded; its module object is set before it runs, so two packages that require each other meet
 * as CommonJS modules do.
 */
export const PACKAGES_SOURCE = `(() => {
  if (Object.hasOwn(globalThis, ${REGISTRY_KEY})) return;
  const factories = new Map();
  const modules = new Map();
  const packageOf = (specifier) => {
    const parts = specifier.split('/');
    return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  };
  const loaded = new Map();
  const load = (specifier) => {
    // What a specifier answers is its package's to memoize too (each ES module namespace is made
    // once); kept here so a warmed isolate's run finds it made.
    if (loaded.has(specifier)) return loaded.get(specifier);
    const name = packageOf(String(specifier));
    let module = modules.get(name);
    if (module === undefined) {
      const factory = factories.get(name);
      if (factory === undefined) throw new Error("Cannot find package '" + name + "': it is not loaded in this run.");
      module = { exports: {} };
      modules.set(name, module);
      try {
        factory.call(module.exports, load, module, module.exports);
      } catch (error) {
        // Evicted, so the next load runs it again rather than reading half a registry.
        modules.delete(name);
        throw error;
      }
    }
    const get = Object.hasOwn(module.exports, specifier) ? module.exports[specifier] : undefined;
    if (typeof get !== 'function') throw new Error("Cannot find module '" + specifier + "' in its package.");
    const value = get();
    loaded.set(specifier, value);
    return value;
  };
  const define = (name, factory) => {
    if (!factories.has(name)) factories.set(name, factory);
  };
  Object.defineProperty(globalThis, ${REGISTRY_KEY}, { value: Object.freeze({ define, load }) });
})();`;

export class PackageModules {
  readonly #packages = new Map<string, BundledPackage>();
  readonly #subpaths = new Map<string, { readonly pkg: BundledPackage; readonly subpath: BundledSubpath }>();
  readonly #scripts = new Map<string, PackageScript>();
  /** The allowed packages' names, for the module-not-found sentence. */
  readonly names: readonly string[];

  constructor(bundle: PackageBundle) {
    for (const pkg of bundle.packages) {
      this.#packages.set(pkg.name, pkg);
      for (const [specifier, subpath] of Object.entries(pkg.subpaths))
        this.#subpaths.set(specifier, { pkg, subpath });
    }
    this.names = bundle.packages.map(({ name }) => name);
    this.hasCommonJs = [...this.#subpaths.values()].some(({ subpath }) => subpath.format === 'cjs');
  }

  /** The facade module a bare specifier names, when an allowed package offers it. */
  facadeOf(specifier: string): string | undefined {
    return this.#subpaths.has(specifier) ? `${PACKAGE_PREFIX}${specifier}` : undefined;
  }

  /** The specifier behind a facade's module name, when it is one. */
  specifierOf(name: string): string | undefined {
    if (!name.startsWith(PACKAGE_PREFIX)) return undefined;
    const specifier = name.slice(PACKAGE_PREFIX.length);
    return this.#subpaths.has(specifier) ? specifier : undefined;
  }

  /** Whether `specifier` is an ES module's: its facade's source depends on nothing a request says. */
  isEsModule(specifier: string): boolean {
    return this.#subpaths.get(specifier)?.subpath.format === 'esm';
  }

  /** For a CommonJS specifier, the names the lexer found; undefined for an ES module's or an unknown one. */
  commonJsNames(specifier: string): readonly string[] | undefined {
    const found = this.#subpaths.get(specifier);
    return found?.subpath.format === 'cjs' ? found.subpath.names : undefined;
  }

  /** Whether any specifier is CommonJS: only then do the request's imports need reading for names. */
  readonly hasCommonJs: boolean;

  /**
   * The packages to define before `specifier` can load, each once, those it requires first: its
   * own, and every allowed package its code requires, transitively.
   */
  packagesFor(specifier: string): BundledPackage[] {
    const start = this.#subpaths.get(specifier)?.pkg;
    if (start === undefined) return [];
    const order: BundledPackage[] = [];
    const seen = new Set<string>();
    const visit = (pkg: BundledPackage) => {
      if (seen.has(pkg.name)) return;
      seen.add(pkg.name);
      for (const required of pkg.requires) {
        const dependency = this.#packages.get(required);
        if (dependency !== undefined) visit(dependency);
      }
      order.push(pkg);
    };
    visit(start);
    return order;
  }

  /** The script that defines `pkg`, made and hashed the first time a run needs it. */
  script(pkg: BundledPackage): PackageScript {
    let script = this.#scripts.get(pkg.name);
    if (script === undefined) {
      const source = `globalThis[${REGISTRY_KEY}].define(${JSON.stringify(pkg.name)}, (function (require, module, exports) {\n${pkg.source}\n}));\n`;
      script = {
        source,
        filename: `${PACKAGE_PREFIX}${pkg.name}@${pkg.version}.js`,
        key: codeCacheKey(source),
      };
      this.#scripts.set(pkg.name, script);
    }
    return script;
  }

  /** The facade's ES module source; `names` are a CommonJS specifier's (found and asked), ignored for an ES module's. */
  facadeSource(specifier: string, names: FacadeNames | undefined): string {
    const found = this.#subpaths.get(specifier);
    if (found === undefined) throw new Error(`No allowed package offers ${specifier}.`);
    const load = `const moduleExports = globalThis[${REGISTRY_KEY}].load(${JSON.stringify(specifier)});\n`;
    if (found.subpath.format === 'cjs') {
      const commonJs = names ?? { found: found.subpath.names, asked: [] };
      return `${load}export default moduleExports;\n${namedExports(specifier, commonJs)}`;
    }
    const exported = found.subpath.names.filter((name) => name !== 'default');
    const withDefault = found.subpath.names.includes('default')
      ? 'export default moduleExports.default;\n'
      : '';
    return `${load}${withDefault}${namedExports(specifier, { found: exported, asked: [] })}`;
  }
}

/** The file name PACKAGES_SOURCE compiles under. */
export const PACKAGES_FILENAME = 'codemode:packages.js';

/** A package's script as a run compiles it. */
export interface PackageScript {
  /** Defines the package in the isolate's registry (PACKAGES_SOURCE must have run). */
  readonly source: string;
  /** What stack frames inside the package name: `codemode:package/zod@4.6.7.js`. */
  readonly filename: string;
  /** The source's code cache key, hashed once per sandbox instead of once per run. */
  readonly key: string;
}

/**
 * Bytes of the packages' script code cache a sandbox keeps: zod's blob is about 800 KB and
 * date-fns's 1.3 MB, so 32 MiB holds the blobs of some twenty-five libraries of that size.
 */
export const PACKAGE_CODE_CACHE_BUDGET = 32 * 1024 * 1024;

/** What defining packages in one isolate works with: its handle, what it holds defined, the scripts' cache. */
export interface Definition {
  readonly handle: IsolateHandle;
  readonly packages: PackageModules;
  /** Package names defined in the isolate, '' for the registry itself; added to as each is. */
  readonly defined: Set<string>;
  readonly cache: CodeCache | undefined;
  /** A bound on each script's run, in ms: preparation's, where no run clock bounds the work. */
  readonly timeout?: number;
}

/** The registry, then each package `specifier` needs, that the isolate does not hold yet. */
function missing({ packages, defined }: Definition, specifier: string) {
  const scripts: { name: string; source: string; filename: string; key?: string }[] = packages
    .packagesFor(specifier)
    .filter((pkg) => !defined.has(pkg.name))
    .map((pkg) => ({ name: pkg.name, ...packages.script(pkg) }));
  if (scripts.length > 0 && !defined.has('')) {
    scripts.unshift({ name: '', source: PACKAGES_SOURCE, filename: PACKAGES_FILENAME });
  }
  return scripts;
}

/** Defines what `specifier` needs, with synchronous calls: for an idle isolate (the static graph, preparation). */
export function definePackagesSync(definition: Definition, specifier: string): void {
  const { handle, cache, timeout } = definition;
  for (const { name, source, filename, key } of missing(definition, specifier)) {
    const script = compileScriptCachedSync(handle.isolate, source, {
      filename,
      cache,
      ...(key ? { key } : {}),
    });
    try {
      script.runSync(handle.context, timeout === undefined ? {} : { timeout });
    } finally {
      script.release();
    }
    definition.defined.add(name);
  }
}

/** The same with asynchronous calls, for an isolate that may be busy (import() while the program runs). */
export async function definePackages(definition: Definition, specifier: string): Promise<void> {
  const { handle, cache } = definition;
  for (const { name, source, filename, key } of missing(definition, specifier)) {
    // Another load may have defined it while this one waited.
    if (definition.defined.has(name)) continue;
    const script: ivm.Script = await compileScriptCached(handle.isolate, source, {
      filename,
      cache,
      ...(key ? { key } : {}),
    });
    try {
      await script.run(handle.context);
    } finally {
      script.release();
    }
    definition.defined.add(name);
  }
}

/** The isolate-side expression that loads `specifier` from the registry (preparation's warm-up). */
export function loadExpression(specifier: string): string {
  return `void globalThis[${REGISTRY_KEY}].load(${JSON.stringify(specifier)});`;
}
