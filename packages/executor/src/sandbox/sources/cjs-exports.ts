/**
 * The named exports of each CommonJS facade of a request (cjs.ts), decided on the host before the
 * graph links, because V8 needs a module's export names when it compiles it.
 *
 * Two sources of names, both read off the request's text:
 * - the names cjs-module-lexer finds in the cjs source (`exports.a = ...`, `module.exports = { a }`,
 *   `Object.defineProperty(exports, 'a', ...)`), with those of the modules it re-exports whole
 *   (`module.exports = require('./other')`) when they are cjs modules of the map: what Node finds;
 * - the names the request's ES modules (its code's imports, its js and ts modules) ask of the
 *   module in `import { a } from` or `export { a } from`. Node stops at the lexer, so
 *   `import { groupBy } from 'lodash'` fails there: lodash assigns its functions through an alias
 *   the lexer cannot follow. Here a name asked for is exported too, read from module.exports once
 *   the module has run, and a name module.exports does not hold then throws the engine's own
 *   words for a missing export, as a SyntaxError, before the importer runs.
 *
 * Bounded as the type eraser is (sources/preparation.ts): every source was through the nesting
 * scan; a request's small sources (at most INLINE_BUDGET characters in all) are read on this thread,
 * where they cost well under a millisecond, and the rest in a deadline worker's thread under the
 * run's bound (names-worker.ts), so a source of megabytes neither stalls the host's event loop nor
 * outlives the run. Readings of large sources are kept per sandbox (NAME_CACHE_BUDGET), keyed by a
 * hash of the text, so a library sent with every request is read once.
 */
import type { ModuleEntry } from '@supolka/codemode-protocol/wire';
import { cjsFactoryName } from '../cjs.ts';
import { ENTRY_NAME } from '../errors/positions.ts';
import { moduleKind, type NormalizedModuleMap } from '../modules/module-map.ts';
import type { PackageModules } from '../modules/packages.ts';
import { nodeCrypto } from '../node-crypto.ts';
import { resolveSpecifier } from '../resolver.ts';
import { type DeadlineWorker, threadModule, type WorkerSource } from '../threads/deadline-worker.ts';
import {
  type CommonJsNames,
  type ImportedNames,
  type NameReading,
  type ReadNames,
  readNames,
} from './export-names.ts';
import { isTypeScriptModule } from './typescript.ts';

/** The thread module a sandbox's deadline worker reads names in: names-worker.ts, beside this file. */
export const NAMES_WORKER = threadModule('names-worker', import.meta.url);

/** The names one facade exports beside its default. */
export interface FacadeNames {
  /** Found by the lexer (its own, and those of cjs modules it re-exports whole): exported as Node would. */
  readonly found: readonly string[];
  /** Asked for by the request's imports and not found: exported, and checked once the module ran. */
  readonly asked: readonly string[];
}

/** Each cjs module of the map and each CommonJS package facade a run imports, by module name, and the names it exports. */
export type FacadeNameMap = ReadonlyMap<string, FacadeNames>;

/**
 * Characters of a request's sources read on the host's thread: the lexers read a 64 KiB source in
 * a fraction of a millisecond once warm (about 10 ms for lodash's 546 KB, 90 ms for 10 MB).
 */
export const INLINE_BUDGET = 64 * 1024;

/** Characters of names the process keeps for sources read in the worker: readings of a few hundred libraries. */
export const NAME_CACHE_BUDGET = 4 * 1024 * 1024;

/** One source to read, and where its answer goes. */
interface Reading {
  readonly reading: NameReading;
  /** The module the names belong to (the entry's name for the code's imports). */
  readonly module: string;
  readonly source: string;
}

export class ExportNameReader {
  readonly #worker: DeadlineWorker;
  readonly #cache = new Map<string, { names: ReadNames; size: number }>();
  #cached = 0;

  constructor(worker: DeadlineWorker) {
    this.#worker = worker;
  }

  /**
   * The facades' names for `modules`, whose code imports with `imports()` (its leading import
   * declarations, read only when needed) and whose `.ts` modules read as `erased`; undefined when
   * `within` ms of the worker's time passed first. A map with no cjs module (and no CommonJS
   * package allowed) costs nothing.
   */
  async facadeNames(
    modules: NormalizedModuleMap,
    imports: () => string,
    erased: ReadonlyMap<string, string | Error> | undefined,
    within: number,
    packages?: PackageModules,
  ): Promise<FacadeNameMap | undefined> {
    const cjs = [...modules].filter(([, entry]) => moduleKind(entry) === 'cjs').map(([name]) => name);
    if (cjs.length === 0 && packages?.hasCommonJs !== true) return new Map();
    const readings = sourcesToRead(modules, imports(), erased);
    const answers = await this.#read(readings, within);
    if (answers === undefined) return undefined;
    const lexed = new Map<string, CommonJsNames>();
    const asked = new Map<string, Set<string>>(cjs.map((name) => [name, new Set()]));
    // Package facades some import asks names of, with their specifiers.
    const packaged = new Map<string, string>();
    const has = (candidate: string) => modules.has(candidate);
    readings.forEach(({ reading, module }, index) => {
      const names = answers[index] as ReadNames;
      if (reading === 'cjs') {
        lexed.set(module, names as CommonJsNames);
        return;
      }
      for (const { specifier, names: wanted } of names as readonly ImportedNames[]) {
        const resolved = resolveSpecifier(specifier, module, has);
        let target = asked.get(resolved);
        // A CommonJS specifier of an allowed package, when the map has no key of that name.
        const facade = has(resolved) ? undefined : packages?.facadeOf(specifier);
        if (
          target === undefined &&
          facade !== undefined &&
          packages?.commonJsNames(specifier) !== undefined
        ) {
          target = asked.get(facade) ?? new Set();
          asked.set(facade, target);
          packaged.set(facade, specifier);
        }
        for (const name of wanted) target?.add(name);
      }
    });
    const facades = new Map<string, FacadeNames>();
    for (const name of cjs) {
      // Re-exports resolve as require() does: among the cjs modules alone.
      const found = foundNames(name, lexed, (candidate) => lexed.has(candidate));
      const missing = [...(asked.get(name) as Set<string>)].filter((wanted) => !found.has(wanted));
      facades.set(name, { found: [...found].filter(isExportName), asked: missing.filter(isExportName) });
    }
    for (const [facade, specifier] of packaged) {
      const found = new Set((packages as PackageModules).commonJsNames(specifier));
      const missing = [...(asked.get(facade) as Set<string>)].filter((wanted) => !found.has(wanted));
      facades.set(facade, { found: [...found].filter(isExportName), asked: missing.filter(isExportName) });
    }
    return facades;
  }

  /** Each reading's names: small sources here, cached ones from the cache, the rest in the worker. */
  async #read(readings: readonly Reading[], within: number): Promise<ReadNames[] | undefined> {
    const answers: (ReadNames | undefined)[] = [];
    const sent: WorkerSource[] = [];
    const sentAt: { index: number; key: string }[] = [];
    let inline = 0;
    readings.forEach(({ reading, source }, index) => {
      if (inline + source.length <= INLINE_BUDGET) {
        inline += source.length;
        answers[index] = readNames(reading, source);
        return;
      }
      const key = `${reading}:${nodeCrypto().createHash('sha256').update(source).digest('base64url')}`;
      const kept = this.#cache.get(key);
      if (kept !== undefined) {
        // Most recently used last, so the oldest go first when the budget runs out.
        this.#cache.delete(key);
        this.#cache.set(key, kept);
        answers[index] = kept.names;
        return;
      }
      sent.push({ name: key, source });
      sentAt.push({ index, key });
    });
    if (sent.length > 0) {
      const outcome = await this.#worker.run(sent, within);
      if (outcome === undefined) return undefined;
      outcome.forEach((answer, position) => {
        const { index, key } = sentAt[position] as { index: number; key: string };
        if (answer instanceof Error) throw answer;
        const names = JSON.parse(answer) as ReadNames;
        answers[index] = names;
        this.#keep(key, names, answer.length);
      });
    }
    return answers as ReadNames[];
  }

  #keep(key: string, names: ReadNames, size: number): void {
    if (size > NAME_CACHE_BUDGET || this.#cache.has(key)) return;
    this.#cache.set(key, { names, size });
    this.#cached += size;
    for (const [oldest, { size: oldSize }] of this.#cache) {
      if (this.#cached <= NAME_CACHE_BUDGET) break;
      this.#cache.delete(oldest);
      this.#cached -= oldSize;
    }
  }
}

/** The sources whose names decide the facades: every cjs source, the code's imports, every ES module. */
function sourcesToRead(
  modules: NormalizedModuleMap,
  imports: string,
  erased: ReadonlyMap<string, string | Error> | undefined,
): Reading[] {
  const readings: Reading[] = [];
  if (imports !== '') readings.push({ reading: 'esm', module: ENTRY_NAME, source: imports });
  for (const [name, entry] of modules) {
    const kind = moduleKind(entry);
    if (kind === 'cjs') {
      readings.push({ reading: 'cjs', module: name, source: commonJsSource(name, entry, erased) });
    } else if (kind === 'js') {
      const written = typeof entry === 'string' ? entry : (entry.js as string);
      const source = isTypeScriptModule(name) ? erased?.get(name) : written;
      // A module whose erasure was refused fails when it links; it asks for nothing.
      if (typeof source === 'string') readings.push({ reading: 'esm', module: name, source });
    }
  }
  return readings;
}

/** A cjs module's source as its factory runs it: with its types erased when its name says TypeScript. */
function commonJsSource(
  name: string,
  entry: ModuleEntry,
  erased: ReadonlyMap<string, string | Error> | undefined,
): string {
  const written = (entry as { cjs: string }).cjs;
  if (!isTypeScriptModule(name)) return written;
  const factory = erased?.get(cjsFactoryName(name));
  // The factory's erased text, less the wrapper line before the source and the brace after it.
  return typeof factory === 'string'
    ? factory.slice(factory.indexOf('\n') + 1, factory.lastIndexOf('}'))
    : written;
}

/** The lexer's names for `name`, with those of the cjs modules it re-exports whole, followed through the map. */
function foundNames(
  name: string,
  lexed: ReadonlyMap<string, CommonJsNames>,
  has: (candidate: string) => boolean,
): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (module: string) => {
    const names = lexed.get(module);
    if (seen.has(module) || names === undefined) return;
    seen.add(module);
    for (const exported of names.exports) found.add(exported);
    for (const specifier of names.reexports) visit(resolveSpecifier(specifier, module, has));
  };
  visit(name);
  found.delete('default');
  return found;
}

/** A name an export declaration can carry: `default` is module.exports itself, and a name must be well-formed text. */
function isExportName(name: string): boolean {
  return name !== 'default' && name.isWellFormed();
}
