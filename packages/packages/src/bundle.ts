/**
 * bundlePackages: the operator's packages made into the bundle the executor serves imports from
 * (the executor's src/packages/bundle.ts is the contract). Runs when an executor is configured,
 * never on a request's path: a program picks from what was bundled and cannot cause bundling.
 *
 * Each package becomes one CommonJS script, esbuild's output for a registry module that maps every
 * specifier it offers to a function requiring its file. One script, not one ES module per
 * specifier with shared chunks: splitting date-fns's 740 subpaths gave 1495 files, and its main
 * entry alone imported 259 of them, each a module to compile and link in every run; in one script
 * every module is there once, initialized only when a specifier that needs it is loaded, so `zod`
 * and `zod/v4` share one copy of zod (adr/0006). A second build with splitting reads what each
 * specifier exports (esbuild's metafile), since the registry's output cannot say.
 *
 * A package bundled once is kept for the process while the files it was made from are unchanged
 * (bundle-cache.ts), and in the executor's trusted cache folder when it hands one in (disk-cache.ts).
 * Bounded: the whole configuration within `timeout` (BUNDLE_TIMEOUT by default; each esbuild run
 * is cancelled at the deadline), one package's script at most PACKAGE_SIZE_LIMIT, all of them at
 * most BUNDLE_SIZE_LIMIT. Every failure is a PackageConfigurationError with one sentence.
 */
import { dirname, join, resolve } from 'node:path';
import type { BundledPackage, BundledSubpath, PackageBundle } from '@supolka/codemode-executor';
import { type BuildOptions, type BuildResult, context, type Message, stop } from 'esbuild';
import { BundleCache, fingerprints, unchanged } from './bundle-cache.ts';
import { commonJsNames } from './commonjs-names.ts';
import { configuredPackages, PackageConfigurationError, type PackageList } from './configuration.ts';
import { type DiskFolder, entryKey, keep, readKept } from './disk-cache.ts';
import { checkInputs, guardPlugin } from './guard.ts';
import { type LocatedPackage, locatePackage, readableRoots } from './locate.ts';
import { offeredSubpaths } from './subpaths.ts';

export interface BundleOptions {
  /** Names, or name → directory. */
  readonly packages: PackageList;
  /** The folder names are found from and relative directories resolve against; the working directory by default. */
  readonly base?: string;
  /** Milliseconds the whole configuration may take; BUNDLE_TIMEOUT by default. */
  readonly timeout?: number;
  /**
   * The folder bundles are kept in between processes: the executor hands in its trusted cache
   * folder (its `cache` option); left out, bundles are kept in the process alone.
   */
  readonly cache?: DiskFolder;
}

/** How long bundling may take by default: date-fns's 740 subpaths take about 2 s here. */
export const BUNDLE_TIMEOUT = 120_000;

/** Characters one package's script may hold: a module source's own bound (MODULE_SOURCE_LIMIT). */
export const PACKAGE_SIZE_LIMIT = 8 * 1024 * 1024;

/** Characters all scripts may hold together: the bundle travels to each pool child in one message. */
export const BUNDLE_SIZE_LIMIT = 16 * 1024 * 1024;

/** The process.env.NODE_ENV every bundle is built with; no other variable of the host is inlined. */
export const NODE_ENV = 'production';

export async function bundlePackages(options: BundleOptions): Promise<PackageBundle> {
  const base = resolve(options.base ?? process.cwd());
  const deadline = performance.now() + (options.timeout ?? BUNDLE_TIMEOUT);
  const located = configuredPackages(options.packages, base).map((configured) =>
    locatePackage(configured, base),
  );
  const offered = located.map((pkg) => {
    const subpaths = offeredSubpaths(pkg);
    if (subpaths.size === 0) {
      throw new PackageConfigurationError(
        `The package ${pkg.name} offers no JavaScript entry a Worker build can load.`,
      );
    }
    return subpaths;
  });
  const packages: BundledPackage[] = [];
  let total = 0;
  for (const [index, pkg] of located.entries()) {
    const external = new Map<string, string>();
    located.forEach((other, otherIndex) => {
      if (otherIndex === index) return;
      for (const specifier of (offered[otherIndex] as Map<string, string>).keys())
        external.set(specifier, other.name);
    });
    const bundled = await cachedBundle(
      pkg,
      offered[index] as Map<string, string>,
      external,
      deadline,
      options.cache,
    );
    if (bundled.source.length > PACKAGE_SIZE_LIMIT) {
      throw new PackageConfigurationError(
        `The package ${pkg.name} bundles to ${bundled.source.length} characters, past the ${PACKAGE_SIZE_LIMIT} one package may take.`,
      );
    }
    total += bundled.source.length;
    if (total > BUNDLE_SIZE_LIMIT) {
      throw new PackageConfigurationError(
        `The packages bundle to more than ${BUNDLE_SIZE_LIMIT} characters together (at ${pkg.name}); allow fewer.`,
      );
    }
    packages.push(bundled);
  }
  return { packages };
}

/** The process's bundles (bundle-cache.ts). */
const cache = new BundleCache();

let esbuildRuns = 0;

/** How many packages this process has run esbuild for: a package taken from a cache adds none. */
export function bundlingRuns(): number {
  return esbuildRuns;
}

/**
 * The package's bundle from the process's cache, else from the disk's, when nothing it was made
 * from changed; else made, and kept in both. The disk never fails a configuration: an entry that
 * cannot be read or written is a miss.
 */
async function cachedBundle(
  pkg: LocatedPackage,
  offered: ReadonlyMap<string, string>,
  external: ReadonlyMap<string, string>,
  deadline: number,
  disk: DiskFolder | undefined,
): Promise<BundledPackage> {
  const roots = readableRoots(pkg);
  const key = JSON.stringify([pkg.root, roots, [...offered], [...external]]);
  const inProcess = cache.get(key);
  if (inProcess !== undefined) return inProcess;
  const diskKey = disk === undefined ? undefined : fromDisk(() => entryKey(key, { NODE_ENV }));
  if (disk !== undefined && diskKey !== undefined) {
    const kept = fromDisk(() => readKept(disk, diskKey, pkg.name));
    if (kept !== undefined && unchanged(kept.files)) {
      cache.set(key, kept.bundled, kept.files);
      return kept.bundled;
    }
  }
  esbuildRuns++;
  const made = await bundleOne(pkg, roots, offered, external, deadline);
  const files = fingerprints(made.files);
  cache.set(key, made.bundled, files);
  if (disk !== undefined && diskKey !== undefined) fromDisk(() => keep(disk, diskKey, made.bundled, files));
  return made.bundled;
}

/** What `use` answers, or undefined when it throws: the disk's failures are misses, never the configuration's. */
function fromDisk<T>(use: () => T): T | undefined {
  try {
    return use();
  } catch {
    return undefined;
  }
}

/**
 * The package.json of every folder from `file`'s up to the root it lies in, there or not: esbuild
 * consults them (a `browser` field, `sideEffects`, `type`), so one that appears counts as a change.
 */
function consultedManifests(file: string, roots: readonly string[]): string[] {
  const manifests: string[] = [];
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    manifests.push(join(folder, 'package.json'));
    if (roots.includes(folder) || dirname(folder) === folder) return manifests;
  }
}

async function bundleOne(
  pkg: LocatedPackage,
  roots: readonly string[],
  offered: ReadonlyMap<string, string>,
  external: ReadonlyMap<string, string>,
  deadline: number,
): Promise<{ bundled: BundledPackage; files: string[] }> {
  const requires = new Set<string>();
  const common: BuildOptions = {
    bundle: true,
    write: false,
    logLevel: 'silent',
    platform: 'browser',
    conditions: ['worker', 'browser'],
    define: { 'process.env.NODE_ENV': JSON.stringify(NODE_ENV) },
    charset: 'utf8',
    legalComments: 'none',
    absWorkingDir: pkg.root,
    plugins: [guardPlugin({ name: pkg.name, roots, external, requires })],
  };
  const registry = `module.exports = {\n${[...offered]
    .map(([specifier, file]) => `  ${JSON.stringify(specifier)}: () => require(${JSON.stringify(file)}),`)
    .join('\n')}\n};\n`;
  const entries = [...new Set(offered.values())];
  const [script, analysis] = await buildsWithin(pkg.name, deadline, [
    {
      ...common,
      format: 'cjs',
      metafile: true,
      stdin: { contents: registry, resolveDir: pkg.root, sourcefile: '<codemode-registry>', loader: 'js' },
    },
    {
      ...common,
      format: 'esm',
      splitting: true,
      metafile: true,
      outdir: 'codemode-analysis',
      entryPoints: Object.fromEntries(entries.map((file, index) => [`entry${index}`, file])),
    },
  ]);
  // What the bundle was made from: every file the builds read, each readable folder's package.json,
  // and every package.json esbuild could have consulted on the way up from a file read.
  const files = new Set(roots.map((root) => join(root, 'package.json')));
  for (const result of [script, analysis]) {
    if (result.metafile === undefined) continue;
    for (const file of checkInputs(pkg.name, result.metafile, pkg.root, roots)) {
      files.add(file);
      for (const manifest of consultedManifests(file, roots)) files.add(manifest);
    }
  }
  const byFile = exportsByEntry(analysis, entries);
  const subpaths: Record<string, BundledSubpath> = {};
  for (const [specifier, file] of offered) {
    const read = byFile.get(file);
    subpaths[specifier] =
      read === undefined || read.format === 'cjs'
        ? { format: 'cjs', names: commonJsNames(file, roots) }
        : { format: 'esm', names: read.names };
  }
  const bundled: BundledPackage = {
    name: pkg.name,
    version: pkg.version,
    source: (script.outputFiles?.[0]?.text ?? '').replace(/^"use strict";\n/, ''),
    requires: [...requires].sort(),
    subpaths,
  };
  return { bundled, files: [...files] };
}

/** Each entry file's format and, for an ES module, its export names, from the analysis build's metafile. */
function exportsByEntry(
  analysis: BuildResult,
  files: readonly string[],
): Map<string, { format: 'esm' | 'cjs'; names: string[] }> {
  const found = new Map<string, { format: 'esm' | 'cjs'; names: string[] }>();
  const metafile = analysis.metafile;
  if (metafile === undefined) return found;
  for (const [output, meta] of Object.entries(metafile.outputs)) {
    const match = /(?:^|\/)entry(\d+)\.js$/.exec(output);
    if (match === null || meta.entryPoint === undefined) continue;
    const file = files[Number(match[1])];
    if (file === undefined) continue;
    const format = metafile.inputs[meta.entryPoint]?.format;
    found.set(file, {
      format: format === 'cjs' || format === undefined ? 'cjs' : 'esm',
      names: meta.exports,
    });
  }
  return found;
}

/**
 * A package's builds, run together, each within the deadline. esbuild serves a Node process from
 * one process of its own, which a package can end: a file nested deeper than its parser's stack
 * (`[[[...]]]` two hundred thousand deep) is a fatal error there, after which every build of the
 * process failed with "The service is no longer running". Once every build has settled, such a
 * package is refused and the service stopped, once, so the next build starts a fresh process; a
 * service that had ended before these builds began (under another's) is started afresh and the
 * builds run once more.
 */
async function buildsWithin(
  name: string,
  deadline: number,
  builds: readonly [BuildOptions, BuildOptions],
): Promise<[BuildResult, BuildResult]> {
  for (let attempt = 0; ; attempt++) {
    const settled = await Promise.allSettled(builds.map((options) => buildWithin(options, name, deadline)));
    const failures = settled.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    if (failures.length === 0)
      return settled.map((outcome) => (outcome as PromiseFulfilledResult<BuildResult>).value) as [
        BuildResult,
        BuildResult,
      ];
    const ended = failures.map(serviceEnded);
    if (ended.every((when) => when === undefined)) throw failures[0];
    await stop();
    if (ended.every((when) => when === 'before') && attempt === 0) continue;
    throw new PackageConfigurationError(
      `esbuild's process ended while bundling the package ${name} (a file nested deeper than its parser's stack, or a build past the memory it may take): it cannot be bundled.`,
    );
  }
}

/** Whether `error` says esbuild's process ended under the build ('during') or before it; undefined when not. */
function serviceEnded(error: unknown): 'during' | 'before' | undefined {
  const cause = error instanceof PackageConfigurationError ? (error.cause ?? error) : error;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (message.startsWith('The service was stopped')) return 'during';
  return message.startsWith('The service is no longer running') ? 'before' : undefined;
}

/** One esbuild run, cancelled at the deadline; its failure as one sentence naming the package. */
async function buildWithin(options: BuildOptions, name: string, deadline: number): Promise<BuildResult> {
  const left = deadline - performance.now();
  if (left <= 0) throw timedOut(name);
  const build = await context(options);
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    void build.cancel();
  }, left);
  try {
    const result = await build.rebuild();
    if (expired) throw timedOut(name);
    return result;
  } catch (error) {
    if (expired) throw timedOut(name);
    throw failed(name, error);
  } finally {
    clearTimeout(timer);
    await build.dispose();
  }
}

function timedOut(name: string): PackageConfigurationError {
  return new PackageConfigurationError(
    `Bundling the package ${name} did not finish within the time bundling may take.`,
  );
}

function failed(name: string, error: unknown): PackageConfigurationError {
  const messages = (error as { errors?: Message[] } | null)?.errors;
  if (!Array.isArray(messages) || messages.length === 0) {
    return new PackageConfigurationError(`Bundling the package ${name} failed: ${String(error)}`, {
      cause: error,
    });
  }
  const shown = messages.slice(0, 1).map((message) => {
    const where = message.location
      ? ` (${message.location.file}:${message.location.line}:${message.location.column})`
      : '';
    return `${message.text}${where}`;
  });
  const more = messages.length > shown.length ? ` And ${messages.length - shown.length} more.` : '';
  return new PackageConfigurationError(`The package ${name} cannot be bundled: ${shown.join(' ')}${more}`);
}
