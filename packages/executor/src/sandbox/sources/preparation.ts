/**
 * What the host does to a request's sources before the isolate runs them, all of it outside every
 * isolate limit and after the run clock has started: the nesting scan of every source a host-side
 * parser will read, the erasure of `.ts` modules (in a deadline worker's thread, under the run's bound),
 * and the entry compiled JavaScript first.
 *
 * JavaScript first: code that parses as JavaScript runs as JavaScript. Erasure is not neutral on
 * valid JavaScript (`[a < b, c > (d)]` would become the call `a(d)`, and `tag < lo, hi > \`x\`` a
 * tagged template), so the entry is compiled as written, and only a SyntaxError from that compile
 * erases the code's types and compiles it once more. V8 is the judge, so the verdict is exact, and
 * plain JavaScript (the common case) costs nothing extra. `.ts` modules are always erased.
 */
import type ivm from 'isolated-vm';
import { cjsFactoryName, cjsInternal } from '../cjs.ts';
import { moduleKind, type NormalizedModuleMap } from '../modules/module-map.ts';
import { moduleSource } from '../modules/module-source.ts';
import {
  type DeadlineWorker,
  threadModule,
  type WorkerOutcome,
  type WorkerSource,
} from '../threads/deadline-worker.ts';
import { CODE_NAME, checkNesting, moduleName } from './nesting-scan.ts';
import { isTypeScriptModule } from './typescript.ts';

/** The thread module a sandbox's deadline worker erases types in: erasure-worker.ts, beside this file. */
export const ERASURE_WORKER = threadModule('erasure-worker', import.meta.url);

/** Throws BadRequestError when the code or a module source a host parser reads nests past NESTING_LIMIT. */
export function checkSourceNesting(code: string, modules: NormalizedModuleMap): void {
  checkNesting(code, CODE_NAME);
  for (const [name, entry] of modules) {
    const kind = moduleKind(entry);
    const source =
      typeof entry === 'string' ? entry : kind === 'js' ? entry.js : kind === 'cjs' ? entry.cjs : undefined;
    if (source !== undefined) checkNesting(source, moduleName(name));
  }
}

/**
 * The `.ts`, `.mts` and `.cts` modules of the map with their types erased, or the refusal erasing
 * one raised, for the linker; undefined when the run's bound passed first.
 */
export async function eraseTypeScriptModules(
  modules: NormalizedModuleMap,
  eraser: DeadlineWorker,
  within: number,
): Promise<ReadonlyMap<string, string | Error> | undefined> {
  const sources: WorkerSource[] = [];
  for (const name of modules.keys()) {
    if (!isTypeScriptModule(name)) continue;
    // A cjs module's own source sits in its factory, which the linker compiles under this name;
    // its facade is the sandbox's own text, with no types to erase.
    const factory = cjsInternal(cjsFactoryName(name), modules);
    if (factory !== undefined) {
      sources.push({ name: cjsFactoryName(name), source: factory.source });
      continue;
    }
    try {
      sources.push({ name, source: moduleSource(modules, name, name) });
    } catch {
      // An entry that compiles to nothing is reported by the linker, if anything imports it.
    }
  }
  const erased = await eraser.run(sources, within);
  if (erased === undefined) return undefined;
  return new Map(sources.map(({ name }, index) => [name, erased[index] as string | Error]));
}

export interface EntryCompiler {
  /** Compiles the entry built around `code`; throws the engine's error when it does not parse. */
  readonly compile: (code: string) => ivm.Module;
  /** Erases the code's types under the run's bound; absent when TypeScript is off. */
  readonly erase?: (code: string) => Promise<WorkerOutcome>;
}

/** The entry compiled from the code as written, or from the code with its types erased; undefined when the bound passed. */
export async function compileJavaScriptFirst(
  code: string,
  compiler: EntryCompiler,
): Promise<ivm.Module | undefined> {
  try {
    return compiler.compile(code);
  } catch (error) {
    if (compiler.erase === undefined || !isSyntaxError(error)) throw error;
    const erasure = await compiler.erase(code);
    if (erasure === undefined) return undefined;
    const [erased] = erasure;
    if (erased instanceof Error) throw erased;
    // Erasure that changes nothing (no types, or code swc cannot read either): the engine's verdict stands.
    if (erased === undefined || erased === code) throw error;
    return compiler.compile(erased);
  }
}

function isSyntaxError(error: unknown): boolean {
  return error instanceof Error && error.name === 'SyntaxError';
}
