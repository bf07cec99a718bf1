/**
 * Where a package is on disk, found the way Node finds it (a `node_modules/<name>` in the base
 * folder or one above it) or where the operator's list says, and which folders its code may be
 * read from: its own real directory and those of its declared dependencies, transitively. Every
 * folder is taken by its real path, so a link (pnpm's store, a symbolic link planted in a package)
 * is judged by where it lands.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { type ConfiguredPackage, PackageConfigurationError } from './configuration.ts';

/** The parts of a package.json this package reads. */
export interface Manifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly exports?: unknown;
  readonly main?: unknown;
  readonly module?: unknown;
  readonly browser?: unknown;
  readonly dependencies?: unknown;
  readonly optionalDependencies?: unknown;
  readonly peerDependencies?: unknown;
}

export interface LocatedPackage {
  readonly name: string;
  readonly version: string;
  /** The package's real directory. */
  readonly root: string;
  readonly manifest: Manifest;
}

function readManifest(directory: string): Manifest | undefined {
  const file = join(directory, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Manifest) : undefined;
  } catch {
    return undefined;
  }
}

/** The `node_modules/<name>` directory Node would find from `from`, by its real path; undefined when none. */
export function findInstalled(name: string, from: string): string | undefined {
  let directory = from;
  for (;;) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/** The configured package, read from disk; refused when it is missing or is another package. */
export function locatePackage(configured: ConfiguredPackage, base: string): LocatedPackage {
  const { name } = configured;
  let root: string | undefined;
  if (configured.directory !== undefined) {
    root = existsSync(configured.directory) ? realpathSync(configured.directory) : undefined;
    if (root === undefined) {
      throw new PackageConfigurationError(
        `The package ${name} was to be in ${configured.directory}, which does not exist.`,
      );
    }
  } else {
    root = findInstalled(name, base);
    if (root === undefined) {
      throw new PackageConfigurationError(
        `The package ${name} is not installed where ${base} can find it (no node_modules/${name} there or in a folder above): install it, or give its directory.`,
      );
    }
  }
  const manifest = readManifest(root);
  if (manifest === undefined) {
    throw new PackageConfigurationError(`${root} has no readable package.json, so it is no package ${name}.`);
  }
  if (manifest.name !== name) {
    throw new PackageConfigurationError(
      `${root} holds the package ${JSON.stringify(manifest.name)}, not ${name}: a package is allowed under its own name only.`,
    );
  }
  const version = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  return { name, version, root, manifest };
}

/** The names a manifest declares it needs: dependencies, optional dependencies and peers. */
export function declaredDependencies(manifest: Manifest): string[] {
  const names = new Set<string>();
  for (const field of [manifest.dependencies, manifest.optionalDependencies, manifest.peerDependencies]) {
    if (typeof field === 'object' && field !== null) for (const name of Object.keys(field)) names.add(name);
  }
  return [...names];
}

/**
 * The real directories a package's code may be read from: its own and those of every dependency
 * it declares, found from where it sits, and theirs in turn. A declared dependency that is not
 * installed is left out: esbuild then fails to resolve it, which says so.
 */
export function readableRoots(located: LocatedPackage): string[] {
  const roots = new Set<string>([located.root]);
  const queue: [string, Manifest][] = [[located.root, located.manifest]];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [root, manifest] = next;
    for (const dependency of declaredDependencies(manifest)) {
      const found = findInstalled(dependency, root);
      if (found === undefined || roots.has(found)) continue;
      roots.add(found);
      const dependencyManifest = readManifest(found);
      if (dependencyManifest !== undefined) queue.push([found, dependencyManifest]);
    }
  }
  return [...roots];
}

/** Whether the real path `file` lies inside one of `roots`. */
export function insideRoots(file: string, roots: readonly string[]): boolean {
  return roots.some((root) => file === root || file.startsWith(root.endsWith(sep) ? root : root + sep));
}
