/**
 * The linker of one run: compiles modules of the map on demand (through the V8 code cache),
 * resolves every import V8 asks for while it links a graph, and loads modules for import() through
 * the loader slot.
 *
 * The static graph links before the run starts, while the isolate is idle, so it compiles and
 * links with synchronous calls, a tenth of the cost of asynchronous ones. The loader runs while the
 * program runs, when the isolate may be busy, so it only ever makes asynchronous calls: a
 * synchronous call into a busy isolate would block the host until the isolate is free, and a
 * spinning program would never free it. Compilation is memoized on the module name; on the
 * asynchronous path the memo holds the promise, not the settled module, because two branches of a
 * diamond request their shared dependency concurrently and must get one instance. The resolver
 * only compiles: V8 drives linking of the whole graph from instantiate, and a resolver that
 * instantiated on its own would break cycles.
 */
import { type ErrorKind, InternalError, ModuleNotFoundError } from '@supolka/codemode-protocol/wire';
import type ivm from 'isolated-vm';
import { CJS_FACTORIES, cjsInternal, isCjsModule } from './cjs.ts';
import { INTERNAL_SPECIFIER } from './entry/internal-module.ts';
import { preparationErrorKind } from './errors/error-kind.ts';
import { ENTRY_NAME } from './errors/positions.ts';
import type { IsolateHandle } from './isolate.ts';
import { type CodeCache, compileModuleCached, compileModuleCachedSync } from './modules/code-cache.ts';
import { rewriteDynamicImports } from './modules/dynamic-import.ts';
import { programSpecifier } from './modules/engine-specifier.ts';
import { loaderRootSource, SCOPE_PREFIX, SCOPE_SOURCE } from './modules/linker-sources.ts';
import { loadFailureMessage } from './modules/loader.ts';
import type { NormalizedModuleMap } from './modules/module-map.ts';
import { moduleSource } from './modules/module-source.ts';
import { definePackages, definePackagesSync, type PackageModules } from './modules/packages.ts';
import { resolveSpecifier } from './resolver.ts';
import type { FacadeNameMap } from './sources/cjs-exports.ts';
import { eraseTypes, isTypeScriptModule } from './sources/typescript.ts';

// The file name the entry compiles under; relative imports in it resolve from the root.
export { ENTRY_NAME };

const LOADER_ROOT_PREFIX = 'codemode:load:';

export interface LinkOptions {
  readonly modules: NormalizedModuleMap;
  /** Absent where the engine ignores a module's code cache (the moduleCodeCache probe). */
  readonly codeCache?: CodeCache;
  /** The sandbox's own module, already evaluated; served to the entry and to loader roots. */
  readonly internal: ivm.Module;
  /** Rewrite import() into loader calls: on while the engine lacks a dynamic-import callback. */
  readonly rewriteImports: boolean;
  /** Erase types from modules whose keys end in .ts, .mts or .cts. */
  readonly typescript: boolean;
  /**
   * Those modules' sources as the sandbox erased them before linking (off the main thread, under
   * the run's bound), or the refusal erasing one raised; a module missing here is erased in place.
   */
  readonly erased?: ReadonlyMap<string, string | Error>;
  /** The names each cjs facade exports beside its default (sources/cjs-exports.ts); none when absent. */
  readonly facades?: FacadeNameMap;
  /** The packages the sandbox allows, which serve bare imports the map has no key for (modules/packages.ts). */
  readonly packages?: PackageModules;
  /** The code cache of the packages' scripts, which V8 consumes whatever the engine does with modules'. */
  readonly scriptCache?: CodeCache;
  /** Packages the prepared isolate holds defined already (setup/warm-packages.ts), the registry's '' among them. */
  readonly definedPackages?: ReadonlySet<string>;
  /** Facades the prepared isolate holds linked and evaluated already, by module name. */
  readonly warmFacades?: ReadonlyMap<string, ivm.Module>;
  /** Told each allowed specifier a facade is linked for: what the next prepared isolate may hold ready. */
  readonly onPackageImported?: (specifier: string) => void;
  /** Whether the loader root `token` reported its module evaluated (the host signal). */
  readonly loaded: (token: number) => boolean;
}

export interface Linker {
  /** Compiles the entry; a source that does not parse throws the engine's SyntaxError here. */
  compileEntry(source: string): ivm.Module;
  /** Links the compiled entry's static graph; the isolate must be idle. */
  linkEntry(entry: ivm.Module): ivm.Module;
  /** The first error the resolver raised, which instantiate reports only as a copy. */
  readonly failure: unknown;
}

/** Builds the linker over the module map and fills the isolate's loader slot. */
export function linkModules(handle: IsolateHandle, options: LinkOptions): Linker {
  const memo = new Map<string, ivm.Module | Promise<ivm.Module>>();
  const names = new WeakMap<ivm.Module, string>();
  // The entry, loader roots and scope modules may import the sandbox's own module; nothing else may.
  const privileged = new WeakSet<ivm.Module>();
  // Loader roots alone name a package's facade by its module name.
  const roots = new WeakSet<ivm.Module>();
  let failure: unknown;

  const withoutTypes = (name: string, source: string): string => {
    // A cjs facade is the sandbox's own text: its module's source is erased in its factory.
    if (!options.typescript || !isTypeScriptModule(name) || isCjsModule(options.modules, name)) return source;
    const erased = options.erased?.get(name);
    if (erased instanceof Error) throw erased;
    return erased ?? eraseTypes(source, name);
  };
  // `as` is the name the module resolves its imports from and is reported under: a cjs factory
  // compiles under a name of its own but resolves from its module's id.
  const prepare = (name: string, source: string, as: string) => ({
    source: ((text) => (options.rewriteImports ? rewriteDynamicImports(text, as) : text))(
      withoutTypes(name, source),
    ),
    compileOptions: { filename: as, cache: options.codeCache },
  });
  const register = (module: ivm.Module, name: string, trusted = false): ivm.Module => {
    names.set(module, name);
    if (trusted) privileged.add(module);
    return module;
  };
  const compileSync = (name: string, source: string, trusted = false, as = name): ivm.Module => {
    const { source: text, compileOptions } = prepare(name, source, as);
    return register(compileModuleCachedSync(handle.isolate, text, compileOptions), as, trusted);
  };
  const compileAsync = async (
    name: string,
    source: string,
    trusted = false,
    as = name,
  ): Promise<ivm.Module> => {
    const { source: text, compileOptions } = prepare(name, source, as);
    return register(await compileModuleCached(handle.isolate, text, compileOptions), as, trusted);
  };
  // The factories module and each cjs source's factory, compiled once per run (cjs.ts); memoized
  // apart from the map's names, which a request may spell like them.
  const cjsMemo = new Map<string, ivm.Module | Promise<ivm.Module>>();
  /** The cjs factory or factories module `specifier` names, when `referrer` may import it. */
  const cjsTarget = (specifier: string, referrer: string) => {
    const allowed =
      referrer === CJS_FACTORIES || (specifier === CJS_FACTORIES && isCjsModule(options.modules, referrer));
    const found = allowed ? cjsInternal(specifier, options.modules) : undefined;
    return found === undefined ? undefined : { cjs: specifier, ...found };
  };

  /** What `specifier` names from `referrer`: the sandbox's own modules, a module of the map, or a package's. */
  const locate = (
    specifier: string,
    referrer: ivm.Module,
  ):
    | { internal: ivm.Module }
    | { scope: string }
    | { cjs: string; source: string; as: string }
    | { facade: string; specifier: string }
    | { name: string; from: string } => {
    const referrerName = names.get(referrer);
    if (referrerName === undefined) {
      throw new InternalError(
        `The linker was asked to resolve '${specifier}' for a module it never compiled.`,
      );
    }
    if (privileged.has(referrer)) {
      if (specifier === INTERNAL_SPECIFIER) return { internal: options.internal };
      if (specifier.startsWith(SCOPE_PREFIX)) return { scope: specifier };
    }
    if (roots.has(referrer)) {
      const packaged = options.packages?.specifierOf(specifier);
      if (packaged !== undefined) return { facade: specifier, specifier: packaged };
    }
    const cjs = cjsTarget(specifier, referrerName);
    if (cjs !== undefined) return cjs;
    const found = mapOrPackage(specifier, referrerName);
    if (found === undefined) throw notFound(specifier, referrerName);
    return 'facade' in found ? found : { ...found, from: referrerName };
  };

  /** A module of the map `specifier` names from `referrer`, or else an allowed package's facade for it. */
  const mapOrPackage = (
    specifier: string,
    referrer: string,
  ): { name: string } | { facade: string; specifier: string } | undefined => {
    const name = resolveSpecifier(specifier, referrer, (candidate) => options.modules.has(candidate));
    // A key of the map wins over a package of the same name.
    if (options.modules.has(name)) return { name };
    const facade = options.packages?.facadeOf(specifier);
    return facade === undefined ? undefined : { facade, specifier };
  };
  const notFound = (specifier: string, referrer: string) =>
    new ModuleNotFoundError(specifier, referrer, options.packages?.names);

  // The packages defined in this run's isolate (a run owns its isolate; a prepared one may hold some already).
  const defined = new Set<string>(options.definedPackages);
  const definition = { handle, defined, cache: options.scriptCache };
  const defineSync = (specifier: string): void => {
    definePackagesSync({ ...definition, packages: options.packages as PackageModules }, specifier);
  };
  const defineAsync = (specifier: string): Promise<void> =>
    definePackages({ ...definition, packages: options.packages as PackageModules }, specifier);
  const facadeSource = (facade: string, specifier: string) =>
    (options.packages as PackageModules).facadeSource(specifier, options.facades?.get(facade));
  const packageMemo = new Map<string, ivm.Module | Promise<ivm.Module>>(
    [...(options.warmFacades ?? [])].map(([name, module]) => [name, register(module, name)]),
  );

  const recordFailure = (error: unknown): never => {
    failure ??= error;
    throw error;
  };

  const resolveSync = (received: string, referrer: ivm.Module): ivm.Module => {
    try {
      const target = locate(programSpecifier(received), referrer);
      if ('internal' in target) return target.internal;
      if ('scope' in target) return compileSync(target.scope, SCOPE_SOURCE, true);
      if ('facade' in target) {
        options.onPackageImported?.(target.specifier);
        const known = packageMemo.get(target.facade);
        if (known !== undefined && !(known instanceof Promise)) return known;
        defineSync(target.specifier);
        const module = compileSync(target.facade, facadeSource(target.facade, target.specifier));
        packageMemo.set(target.facade, module);
        return module;
      }
      if ('cjs' in target) {
        const known = cjsMemo.get(target.cjs);
        if (known !== undefined && !(known instanceof Promise)) return known;
        const module = compileSync(target.cjs, target.source, false, target.as);
        cjsMemo.set(target.cjs, module);
        return module;
      }
      const known = memo.get(target.name);
      if (known !== undefined && !(known instanceof Promise)) return known;
      const module = compileSync(
        target.name,
        moduleSource(options.modules, target.name, target.from, options.facades),
      );
      memo.set(target.name, module);
      return module;
    } catch (error) {
      return recordFailure(error);
    }
  };

  const resolveAsync = async (received: string, referrer: ivm.Module): Promise<ivm.Module> => {
    try {
      const target = locate(programSpecifier(received), referrer);
      if ('internal' in target) return target.internal;
      if ('scope' in target) return await compileAsync(target.scope, SCOPE_SOURCE, true);
      if ('facade' in target) {
        options.onPackageImported?.(target.specifier);
        let module = packageMemo.get(target.facade);
        if (module === undefined) {
          const { facade, specifier } = target;
          module = defineAsync(specifier).then(() => compileAsync(facade, facadeSource(facade, specifier)));
          packageMemo.set(facade, module);
        }
        return await module;
      }
      if ('cjs' in target) {
        let module = cjsMemo.get(target.cjs);
        if (module === undefined) {
          module = compileAsync(target.cjs, target.source, false, target.as);
          cjsMemo.set(target.cjs, module);
        }
        return await module;
      }
      let module = memo.get(target.name);
      if (module === undefined) {
        module = Promise.resolve().then(() =>
          compileAsync(target.name, moduleSource(options.modules, target.name, target.from, options.facades)),
        );
        memo.set(target.name, module);
      }
      return await module;
    } catch (error) {
      return recordFailure(error);
    }
  };

  let serial: Promise<unknown> = Promise.resolve();
  const outcomes = new Map<string, Promise<string | undefined>>();
  let nextToken = 1;

  /** Loads `name` through a root module that reports, from inside the isolate, when it has evaluated. */
  const loadOnce = async (name: string): Promise<string | undefined> => {
    const token = nextToken++;
    const root = await compileAsync(`${LOADER_ROOT_PREFIX}${token}`, loaderRootSource(token, name), true);
    roots.add(root);
    try {
      await root.instantiate(handle.context, resolveAsync);
    } catch (error) {
      // No user code runs while a graph links: what fails here is a compile or a lookup.
      return thrownFrame(error, preparationErrorKind(error));
    }
    try {
      await root.evaluate({ promise: true });
    } catch (error) {
      // A throw after the root reported in is a stray rejection of user code, not this load's.
      if (!options.loaded(token)) return thrownFrame(error);
    }
    // Without the report the module's top-level await never settled, and the import never will.
    return options.loaded(token) ? JSON.stringify(['loaded', token]) : undefined;
  };

  handle.loader = (referrer: string, specifier: string): Promise<string> => {
    const result = serial.then(() => {
      const found = mapOrPackage(specifier, referrer);
      if (found === undefined) return thrownFrame(notFound(specifier, referrer), 'module-not-found');
      const name = 'facade' in found ? found.facade : found.name;
      let outcome = outcomes.get(name);
      if (outcome === undefined) {
        outcome = loadOnce(name);
        outcomes.set(name, outcome);
      }
      return outcome;
    });
    // Loads run one after another: the linker claims every module of a graph while it links.
    serial = result.catch(() => undefined);
    return result.then((frame) => frame ?? new Promise<string>(() => {}));
  };

  return {
    compileEntry: (source: string) => compileSync(ENTRY_NAME, source, true),
    linkEntry: (entry: ivm.Module) => {
      entry.instantiateSync(handle.context, resolveSync);
      return entry;
    },
    get failure() {
      return failure;
    },
  };
}

/**
 * A failed load as the isolate rebuilds it: the error's constructor name and its message, and the
 * kind the host observed, when it observed one.
 */
function thrownFrame(error: unknown, kind?: ErrorKind): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const frame = ['thrown', loadFailureMessage(name), loadFailureMessage(message)];
  return JSON.stringify(kind === undefined ? frame : [...frame, kind]);
}
