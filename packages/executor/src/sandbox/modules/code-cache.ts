/**
 * The V8 code cache of one process: identical sources compile once per child while every
 * execution still gets a fresh isolate. Each source is keyed by its base64url SHA-256. A stored blob
 * is consumed through an ExternalCopy and released afterwards; a blob V8 rejects is ignored and the
 * source is parsed in full, and the fresh blob replaces it.
 *
 * Only where the engine reads a module's cache at all (the moduleCodeCache probe, isolate.ts):
 * isolated-vm 6.2.0 compiles modules without asking V8 to consume the blob it is offered, so there
 * the sandbox passes no cache, and each compile skips the hash, the blob V8 would make (four times
 * the compile of a small entry) and the copy kept of it.
 */
import ivm from 'isolated-vm';
import { nodeCrypto } from '../node-crypto.ts';

/** Where blobs live: a Map does, and so does BoundedCodeCache. */
export interface CodeCache {
  get(key: string): ArrayBuffer | undefined;
  set(key: string, blob: ArrayBuffer): unknown;
}

/**
 * The bytes of code cache one process keeps by default. The cache lives in the pool child, so it
 * is part of the child's resident memory for the child's whole life, and a blob is about half its
 * source (acorn's 230 KB of source: about 100 KB). 64 MiB was more than a child's whole memory
 * target (docs/pool.md, "Memory"); 8 MiB holds some eighty libraries of that size, or thousands of
 * model-written programs, whose blobs are a kilobyte or two.
 */
export const DEFAULT_CODE_CACHE_BUDGET = 8 * 1024 * 1024;

/**
 * A code cache that holds at most `budget` bytes, dropping the least recently used blobs first, so
 * a child that sees endless distinct programs does not grow without bound.
 */
export class BoundedCodeCache implements CodeCache {
  readonly #blobs = new Map<string, ArrayBuffer>();
  readonly #budget: number;
  #bytes = 0;

  constructor(budget = DEFAULT_CODE_CACHE_BUDGET) {
    this.#budget = budget;
  }

  get(key: string): ArrayBuffer | undefined {
    const blob = this.#blobs.get(key);
    if (blob !== undefined) {
      this.#blobs.delete(key);
      this.#blobs.set(key, blob);
    }
    return blob;
  }

  set(key: string, blob: ArrayBuffer): this {
    const previous = this.#blobs.get(key);
    if (previous !== undefined) {
      this.#bytes -= previous.byteLength;
      this.#blobs.delete(key);
    }
    // A blob past the whole budget would only empty the cache on its way through.
    if (blob.byteLength > this.#budget) return this;
    this.#blobs.set(key, blob);
    this.#bytes += blob.byteLength;
    for (const [oldest, old] of this.#blobs) {
      if (this.#bytes <= this.#budget) break;
      this.#blobs.delete(oldest);
      this.#bytes -= old.byteLength;
    }
    return this;
  }

  keys(): IterableIterator<string> {
    return this.#blobs.keys();
  }

  get size(): number {
    return this.#blobs.size;
  }

  /** The bytes of the blobs held, which never exceed the budget once a set returns. */
  get bytes(): number {
    return this.#bytes;
  }
}

export function codeCacheKey(source: string): string {
  return nodeCrypto().createHash('sha256').update(source).digest('base64url');
}

/** What isolated-vm adds to a compiled module or script that was offered or asked for cached data. */
export interface CompiledCode {
  readonly cachedData?: ivm.ExternalCopy<ArrayBuffer>;
  readonly cachedDataRejected?: boolean;
}

interface CompileOptions {
  readonly filename: string;
  /** Undefined where the engine ignores a module's cache: the source is compiled, nothing is made. */
  readonly cache: CodeCache | undefined;
  /** The source's key when the caller holds it already (a package's script, hashed once); codeCacheKey otherwise. */
  readonly key?: string;
}

/** Compiles through the cache: a stored blob goes in through an ExternalCopy; a fresh one is kept. */
function throughCache<Code extends ivm.Module | ivm.Script, Result extends Code | Promise<Code>>(
  source: string,
  options: CompileOptions,
  compile: (options: ivm.CompileModuleOptions) => Result,
): Result {
  if (options.cache === undefined) return compile({ filename: options.filename });
  const cache = options.cache;
  const key = options.key ?? codeCacheKey(source);
  const stored = cache.get(key);
  const cachedData = stored === undefined ? undefined : new ivm.ExternalCopy(stored);
  const keep = (module: Code): Code => {
    const compiled = module as Code & CompiledCode;
    if (compiled.cachedData !== undefined) {
      cache.set(key, compiled.cachedData.copy());
      compiled.cachedData.release();
    }
    return module;
  };
  const release = () => cachedData?.release();
  let result: Result;
  try {
    result = compile({
      filename: options.filename,
      produceCachedData: true,
      ...(cachedData === undefined ? {} : { cachedData }),
    });
  } catch (error) {
    release();
    throw error;
  }
  if (result instanceof Promise) return (result as Promise<Code>).then(keep).finally(release) as Result;
  release();
  return keep(result as Code) as Result;
}

/** For an isolate that is busy or may be: the host stays free while the isolate compiles. */
export function compileModuleCached(
  isolate: ivm.Isolate,
  source: string,
  options: CompileOptions,
): Promise<ivm.Module> {
  return throughCache(source, options, (compileOptions) => isolate.compileModule(source, compileOptions));
}

/**
 * For an isolate known to be idle (the entry graph, before the run starts): a synchronous call
 * costs a tenth of an asynchronous one, which pays a round trip through the event loop.
 */
export function compileModuleCachedSync(
  isolate: ivm.Isolate,
  source: string,
  options: CompileOptions,
): ivm.Module {
  return throughCache(source, options, (compileOptions) => isolate.compileModuleSync(source, compileOptions));
}

/**
 * A script through the cache. V8 consumes a script's code cache in every engine this sandbox
 * serves, which is why packages are scripts (modules/packages.ts): zod's 1.4 MB compiled in about
 * 65 ms from source and 5 ms from its blob here.
 */
export function compileScriptCached(
  isolate: ivm.Isolate,
  source: string,
  options: CompileOptions,
): Promise<ivm.Script> {
  return throughCache(source, options, (compileOptions) => isolate.compileScript(source, compileOptions));
}

/** The same, for an idle isolate: a package defined while the static graph links. */
export function compileScriptCachedSync(
  isolate: ivm.Isolate,
  source: string,
  options: CompileOptions,
): ivm.Script {
  return throughCache(source, options, (compileOptions) => isolate.compileScriptSync(source, compileOptions));
}
