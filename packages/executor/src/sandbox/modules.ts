/**
 * The linker of one run: compiles modules of the map on demand (through the V8 code cache),
 * resolves every import V8 asks for while it links a graph, and loads modules for import() through
 * the loader slot.
 *
 * Compilation is memoized on the module name, and the memo holds the promise, not the settled
 * module: two branches of a diamond request their shared dependency concurrently, and each must
 * get the same instance. The resolver only compiles. V8 drives linking of the whole graph from
 * instantiate, and a resolver that instantiated on its own would break cycles.
 */
import { InternalError, ModuleNotFoundError } from '@supolka/codemode-protocol';
import type ivm from 'isolated-vm';
import { type CodeCache, compileModuleCached } from './code-cache.ts';
import { rewriteDynamicImports } from './dynamic-import.ts';
import { INTERNAL_SPECIFIER } from './internal-module.ts';
import type { IsolateHandle } from './isolate.ts';
import { moduleSource, type NormalizedModuleMap } from './module-map.ts';
import { resolveSpecifier } from './resolver.ts';

/** The file name the entry compiles under; relative imports in it resolve from the root. */
export const ENTRY_NAME = 'executor.js';

const LOADER_ROOT_PREFIX = 'codemode:load:';
const SCOPE_PREFIX = 'codemode:scope:';

export interface LinkOptions {
  readonly modules: NormalizedModuleMap;
  readonly codeCache: CodeCache;
  /** The sandbox's own module, already evaluated; served to the entry and to loader roots. */
  readonly internal: ivm.Module;
  /** Rewrite import() into loader calls: on while the engine lacks a dynamic-import callback. */
  readonly rewriteImports: boolean;
  /** Whether the loader root `token` reported its module evaluated (the host signal). */
  readonly loaded: (token: number) => boolean;
}

export interface Linker {
  compileEntry(source: string): Promise<ivm.Module>;
  resolve(specifier: string, referrer: ivm.Module): Promise<ivm.Module>;
  /** The first error the resolver raised, which instantiate reports only as a copy. */
  readonly failure: unknown;
}

/** Builds the linker over the module map and fills the isolate's loader slot. */
export function linkModules(handle: IsolateHandle, options: LinkOptions): Linker {
  const memo = new Map<string, Promise<ivm.Module>>();
  const names = new WeakMap<ivm.Module, string>();
  const privileged = new WeakSet<ivm.Module>();
  let failure: unknown;

  const compile = (name: string, source: string): Promise<ivm.Module> =>
    compileModuleCached(
      handle.isolate,
      options.rewriteImports ? rewriteDynamicImports(source, name) : source,
      {
        filename: name,
        cache: options.codeCache,
      },
    ).then((module) => {
      names.set(module, name);
      return module;
    });

  const compileNamed = (name: string, referrer: string): Promise<ivm.Module> => {
    let compiled = memo.get(name);
    if (compiled === undefined) {
      compiled = Promise.resolve().then(() => compile(name, moduleSource(options.modules, name, referrer)));
      memo.set(name, compiled);
    }
    return compiled;
  };

  const resolve = async (specifier: string, referrer: ivm.Module): Promise<ivm.Module> => {
    try {
      const referrerName = names.get(referrer);
      if (referrerName === undefined) {
        throw new InternalError(
          `The linker was asked to resolve '${specifier}' for a module it never compiled.`,
        );
      }
      if (privileged.has(referrer)) {
        if (specifier === INTERNAL_SPECIFIER) return options.internal;
        if (specifier.startsWith(SCOPE_PREFIX)) {
          const scopeModule = await compile(
            specifier,
            `import { __enterGlobalScope } from ${JSON.stringify(INTERNAL_SPECIFIER)};\n__enterGlobalScope();`,
          );
          privileged.add(scopeModule);
          return scopeModule;
        }
      }
      const name = resolveSpecifier(specifier, referrerName, (candidate) => options.modules.has(candidate));
      if (!options.modules.has(name)) throw new ModuleNotFoundError(specifier, referrerName);
      return await compileNamed(name, referrerName);
    } catch (error) {
      failure ??= error;
      throw error;
    }
  };

  let serial: Promise<unknown> = Promise.resolve();
  const outcomes = new Map<string, Promise<string | undefined>>();
  let nextToken = 1;

  /** Loads `name` through a root module that reports, from inside the isolate, when it has evaluated. */
  const loadOnce = async (name: string): Promise<string | undefined> => {
    const token = nextToken++;
    const rootName = `${LOADER_ROOT_PREFIX}${token}`;
    const root = await compile(
      rootName,
      `import ${JSON.stringify(`${SCOPE_PREFIX}${token}`)};
import * as namespace from ${JSON.stringify(name)};
import { __loaded } from ${JSON.stringify(INTERNAL_SPECIFIER)};
__loaded(${token}, namespace);`,
    );
    privileged.add(root);
    try {
      await root.instantiate(handle.context, resolve);
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
      const name = resolveSpecifier(specifier, referrer, (candidate) => options.modules.has(candidate));
      if (!options.modules.has(name)) return thrownFrame(new ModuleNotFoundError(specifier, referrer));
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
    compileEntry: async (source: string) => {
      const entry = await compile(ENTRY_NAME, source);
      privileged.add(entry);
      return entry;
    },
    resolve,
    get failure() {
      return failure;
    },
  };
}

/** A failed load as the isolate rebuilds it: the error's constructor name and its message. */
function thrownFrame(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return JSON.stringify(['thrown', name, message]);
}
