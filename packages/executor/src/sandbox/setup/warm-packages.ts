/**
 * Allowed packages held ready in an isolate prepared ahead (docs/packages.md, "Where the bundle
 * goes, and what it costs"): a run that imports a package pays for the package's script (compiled
 * from the code cache: 3 to 9 ms for date-fns's 1.7 MB here), for running its modules'
 * registrations and the specifier's own modules (6 ms for `date-fns/addDays`, 16 ms for all of
 * `date-fns`, 13 ms for zod), then for its facade (1.5 ms for date-fns's 250 names). None of that
 * depends on the request
 * (a CommonJS facade's names do, and it is left to the run), so the sandbox does it while it
 * prepares the next isolate, off every request's path, for the specifiers recent runs imported.
 *
 * Only those: a prepared isolate's heap is the next program's, and what it holds counts against
 * that program's memory limit (date-fns and zod loaded: about 8 MB), so packages no recent program
 * imported are not loaded, and a package is loaded only when its estimated heap keeps the isolate
 * within a quarter of the limit (an isolate past it all the same is not used). A durable run
 * never takes a warmed isolate (sandbox.ts): a library's code that ran ahead ran outside its
 * journal. A warm-up that fails (a library's code throws, or runs past WARM_UP_TIMEOUT) leaves
 * the isolate for disposal, and its specifier is never warmed again.
 */
import type ivm from 'isolated-vm';
import type { IsolateHandle } from '../isolate.ts';
import type { CodeCache } from '../modules/code-cache.ts';
import { definePackagesSync, loadExpression, type PackageModules } from '../modules/packages.ts';
import { WARM_WINDOW } from './warm-window.ts';

export { WARM_WINDOW, warmWindow } from './warm-window.ts';

/** Milliseconds a warm-up step may run: no run clock bounds preparation, so each call carries its own. */
export const WARM_UP_TIMEOUT = 2000;

/** The share of a prepared isolate's memory limit its warmed packages may bring its heap to: a quarter. */
export const WARM_UP_SHARE = 4;

/**
 * Heap bytes a package takes once loaded, per character of its script: measured here at 2.5 for
 * date-fns (4.3 MB for 1.7 MB) and 2.6 for zod (3.5 MB for 1.4 MB), so a package that would pass
 * the share is not loaded at all.
 */
export const HEAP_PER_CHARACTER = 3;

/** The specifiers recent runs imported, most recent first, and those whose warm-up failed. */
export class WarmPackages {
  readonly #window: number;
  #runs = 0;
  readonly #recent = new Map<string, number>();
  readonly #refused = new Set<string>();

  /** `window`: how many of the latest runs' imports are warmed (warmWindow); 0 warms nothing. */
  constructor(window: number = WARM_WINDOW) {
    this.#window = window;
  }

  /** A run imported `specifier`. */
  imported(specifier: string): void {
    if (this.#window === 0 || this.#refused.has(specifier)) return;
    this.#recent.delete(specifier);
    this.#recent.set(specifier, this.#runs);
  }

  /** A run ended: specifiers none of the window's runs imported cool down. */
  ran(): void {
    this.#runs++;
    for (const [specifier, at] of this.#recent) {
      if (this.#runs - at > this.#window) this.#recent.delete(specifier);
    }
  }

  /** Its warm-up failed: it is loaded by the runs that import it, and never ahead of them again. */
  refuse(specifier: string): void {
    this.#refused.add(specifier);
    this.#recent.delete(specifier);
  }

  /** The specifiers to warm, most recently imported first. */
  get specifiers(): string[] {
    return [...this.#recent.keys()].reverse();
  }
}

/** What a warmed isolate holds: the packages defined in it, the specifiers loaded, and their facades linked. */
export interface Warmed {
  readonly defined: ReadonlySet<string>;
  readonly loaded: readonly string[];
  /** The facades of the ES module specifiers loaded, compiled, linked and evaluated, by module name. */
  readonly facades: ReadonlyMap<string, ivm.Module>;
}

/**
 * Defines and loads into `handle`, a freshly prepared isolate at `memoryLimit` MB, those of
 * `specifiers` whose packages fit in a quarter of the limit. Answers what it holds; or the
 * specifier whose warm-up failed, or undefined when the heap passed the quarter all the same, after
 * which the isolate must be disposed.
 */
export function warmUp(
  handle: IsolateHandle,
  packages: PackageModules,
  specifiers: readonly string[],
  cache: CodeCache | undefined,
  memoryLimit: number,
): Warmed | { readonly failed: string | undefined } {
  const defined = new Set<string>();
  const loaded: string[] = [];
  const facades = new Map<string, ivm.Module>();
  const ceiling = (memoryLimit * 2 ** 20) / WARM_UP_SHARE;
  for (const specifier of specifiers) {
    if (packages.facadeOf(specifier) === undefined) continue;
    const needed = packages
      .packagesFor(specifier)
      .filter((pkg) => !defined.has(pkg.name))
      .reduce((sum, pkg) => sum + pkg.source.length * HEAP_PER_CHARACTER, 0);
    if (handle.isolate.getHeapStatisticsSync().used_heap_size + needed > ceiling) continue;
    try {
      definePackagesSync({ handle, packages, defined, cache, timeout: WARM_UP_TIMEOUT }, specifier);
      const script = handle.isolate.compileScriptSync(loadExpression(specifier));
      try {
        script.runSync(handle.context, { timeout: WARM_UP_TIMEOUT });
      } finally {
        script.release();
      }
      // An ES module's facade is the same for every request: linked now, the run links to it as it is.
      if (packages.isEsModule(specifier)) {
        const facade = handle.isolate.compileModuleSync(packages.facadeSource(specifier, undefined), {
          filename: packages.facadeOf(specifier) as string,
        });
        facade.instantiateSync(handle.context, () => {
          throw new Error('A package facade imports nothing.');
        });
        facade.evaluateSync({ timeout: WARM_UP_TIMEOUT });
        facades.set(packages.facadeOf(specifier) as string, facade);
      }
    } catch {
      return { failed: specifier };
    }
    loaded.push(specifier);
  }
  // An estimate short of the truth must not leave the next program with less than it was promised.
  if (handle.isolate.getHeapStatisticsSync().used_heap_size > ceiling) return { failed: undefined };
  return { defined, loaded, facades };
}
