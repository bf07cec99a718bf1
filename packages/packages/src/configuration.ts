/**
 * The operator's list of packages, as IsolateExecutor's `packages` option, `run --packages`, the
 * server's options and the MCP bridge's configuration give it: names, or names with the directory
 * each package sits in, relative to a base folder. Checked before anything is read from disk, so a
 * name that could reach a path (`../x`, `/etc`, `node:fs`) never becomes one.
 */
import { isAbsolute, resolve } from 'node:path';

/** Names, or name → the package's directory (absolute, or relative to the base). */
export type PackageList = readonly string[] | Readonly<Record<string, string>>;

/** One package to bundle: its name, and its directory when the list named one. */
export interface ConfiguredPackage {
  readonly name: string;
  readonly directory?: string;
}

/** Why the configuration cannot be served: one sentence an operator can act on. */
export class PackageConfigurationError extends Error {
  override name = 'PackageConfigurationError';
}

/**
 * An npm package name as the registry accepts new ones: lower case letters, digits and `-._~`, at
 * most 214 characters, optionally under one `@scope/`. Nothing else is a name: not a path, not a
 * URL, not `node:fs`, not a name with a subpath.
 */
const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

export function isPackageName(name: string): boolean {
  return name.length <= 214 && NAME.test(name);
}

/** The packages `list` names, each checked; `base` resolves a relative directory. */
export function configuredPackages(list: PackageList, base: string): ConfiguredPackage[] {
  const entries: [string, string | undefined][] = Array.isArray(list)
    ? (list as readonly unknown[]).map((name) => [name as string, undefined])
    : typeof list === 'object' && list !== null
      ? Object.entries(list as Record<string, unknown>).map(([name, directory]) => {
          if (typeof directory !== 'string' || directory === '') {
            throw new PackageConfigurationError(
              `The directory of package ${JSON.stringify(name)} must be a path.`,
            );
          }
          return [name, directory];
        })
      : [];
  if (!Array.isArray(list) && (typeof list !== 'object' || list === null)) {
    throw new PackageConfigurationError(
      'packages must be a list of names, or an object of name → directory.',
    );
  }
  const seen = new Set<string>();
  return entries.map(([name, directory]) => {
    if (typeof name !== 'string' || !isPackageName(name)) {
      throw new PackageConfigurationError(
        `${JSON.stringify(name)} is not a package name: name a package as npm does (lower case, optionally @scope/), with no subpath, path or node: prefix.`,
      );
    }
    if (seen.has(name)) throw new PackageConfigurationError(`The package ${name} is listed twice.`);
    seen.add(name);
    return directory === undefined
      ? { name }
      : { name, directory: isAbsolute(directory) ? directory : resolve(base, directory) };
  });
}
