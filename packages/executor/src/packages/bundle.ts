/**
 * What the packages an executor allows become once bundled (docs/packages.md): the contract between
 * @supolka/codemode-packages, which makes it on the host when the executor is configured, and the
 * sandbox, which serves a program's imports from it. Plain data, so it travels to the pool's
 * children once, in one message, and never per request.
 *
 * Each package is one script: esbuild's CommonJS output of a registry module whose exports map
 * every specifier the package offers (`zod`, `zod/mini`) to a function that requires its file.
 * Every module of the package is in the script once and initialized only when a specifier that
 * needs it is loaded, so a program importing `zod` and `zod/v4` meets one copy of zod. Beside it,
 * what each specifier exports, so the sandbox can write the ES module a program imports.
 *
 * checkBundle refuses a value of another shape: the bundle comes from another package, which may
 * be of another version than this one.
 */

/** How a specifier's module exports: an ES module's names, or CommonJS's module.exports. */
export type SubpathFormat = 'esm' | 'cjs';

export interface BundledSubpath {
  readonly format: SubpathFormat;
  /**
   * An ES module's export names, `default` among them when it has one; for CommonJS, the names
   * cjs-module-lexer found (Node's reading), which the request's imports may add to.
   */
  readonly names: readonly string[];
}

export interface BundledPackage {
  /** The package's name, as the program imports it. */
  readonly name: string;
  /** The version its package.json states. */
  readonly version: string;
  /**
   * The registry's CommonJS text: run as the body of a function of `(require, module, exports)`,
   * it sets module.exports to an object whose keys are the package's specifiers and whose values
   * load them. `require` answers the other allowed packages it needs (`requires`).
   */
  readonly source: string;
  /** The other allowed packages whose specifiers its code requires at run time. */
  readonly requires: readonly string[];
  /** Every specifier a program may import from it (the name itself, and each subpath it offers). */
  readonly subpaths: Readonly<Record<string, BundledSubpath>>;
}

export interface PackageBundle {
  readonly packages: readonly BundledPackage[];
}

/** The allowed packages as a tool description lists them. */
export interface AllowedPackage {
  readonly name: string;
  readonly version: string;
}

export function allowedPackages(bundle: PackageBundle): AllowedPackage[] {
  return bundle.packages.map(({ name, version }) => ({ name, version }));
}

/** Throws naming what does not hold when `value` is not a PackageBundle. */
export function checkBundle(value: unknown): PackageBundle {
  const fail = (what: string): never => {
    throw new Error(`The package bundle is not one this executor reads: ${what}.`);
  };
  const record = (candidate: unknown): candidate is Record<string, unknown> =>
    typeof candidate === 'object' && candidate !== null && !Array.isArray(candidate);
  if (!record(value) || !Array.isArray(value.packages)) return fail('it has no list of packages');
  const names = new Set<string>();
  for (const item of value.packages as unknown[]) {
    if (!record(item)) return fail('a package is not an object');
    const { name, version, source, requires, subpaths } = item;
    if (typeof name !== 'string' || typeof version !== 'string' || typeof source !== 'string') {
      return fail('a package lacks its name, version or source');
    }
    if (names.has(name)) return fail(`the package ${name} appears twice`);
    names.add(name);
    if (!Array.isArray(requires) || !requires.every((required) => typeof required === 'string')) {
      return fail(`the requires of ${name} are not a list of names`);
    }
    if (!record(subpaths)) return fail(`the subpaths of ${name} are not an object`);
    for (const [specifier, subpath] of Object.entries(subpaths)) {
      if (specifier !== name && !specifier.startsWith(`${name}/`)) {
        return fail(`${specifier} is not a specifier of ${name}`);
      }
      if (
        !record(subpath) ||
        (subpath.format !== 'esm' && subpath.format !== 'cjs') ||
        !Array.isArray(subpath.names) ||
        !subpath.names.every((exported) => typeof exported === 'string')
      ) {
        return fail(`the exports of ${specifier} are not a format and a list of names`);
      }
    }
  }
  for (const item of value.packages as BundledPackage[]) {
    for (const required of item.requires) {
      if (!names.has(required)) return fail(`${item.name} requires ${required}, which is not in the bundle`);
    }
  }
  return value as unknown as PackageBundle;
}
