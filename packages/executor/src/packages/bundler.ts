/**
 * The executor's side of bundling (docs/packages.md): @supolka/codemode-packages, loaded the first
 * time an executor is configured with `packages`, and its answer checked. The bundler lives in a
 * package of its own because it ships esbuild, a native binary no other user of the executor needs
 * (adr/0006); like the server's and the bridge's commands (cli/optional-command.ts), it is
 * resolved as an import from this package, never from the folder the process runs in. The bundler
 * keeps its bundles between processes in the trusted cache folder this package opens and hands it
 * (cache/trusted-directory.ts), so the folder's rules are checked here, in one place.
 */
import { openTrustedDirectory, type TrustedDirectory } from '../cache/trusted-directory.ts';
import { checkBundle, type PackageBundle } from './bundle.ts';

export const BUNDLER_PACKAGE = '@supolka/codemode-packages';

/** Names, or name → directory, as the option takes them. */
export type PackageList = readonly string[] | Readonly<Record<string, string>>;

export const BUNDLER_MISSING_MESSAGE = `Allowing packages needs ${BUNDLER_PACKAGE}, which bundles them and is not installed here: install it beside @supolka/codemode-executor (npm install ${BUNDLER_PACKAGE}).`;

interface Bundler {
  bundlePackages(options: {
    packages: PackageList;
    base: string;
    cache?: TrustedDirectory;
  }): Promise<unknown>;
}

async function loadBundler(): Promise<Bundler> {
  try {
    return (await import(BUNDLER_PACKAGE)) as Bundler;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    // The package itself is missing, as against a module it imports: that is a broken install, as it is.
    if (code === 'ERR_MODULE_NOT_FOUND' && String(message).includes(`'${BUNDLER_PACKAGE}`)) {
      throw new Error(BUNDLER_MISSING_MESSAGE);
    }
    throw error;
  }
}

/**
 * The packages of `list`, found from `base`, bundled, or taken from the bundles kept in the cache
 * folder `cache` (cache-option.ts made and checked it; it is checked again as it is opened);
 * rejects with the bundler's sentence.
 */
export async function bundlePackages(
  list: PackageList,
  base: string,
  cache?: string,
): Promise<PackageBundle> {
  const bundler = await loadBundler();
  const opened = cache === undefined ? undefined : openTrustedDirectory(cache, { create: false });
  const folder = opened !== undefined && 'directory' in opened ? opened.directory : undefined;
  return checkBundle(
    await bundler.bundlePackages({ packages: list, base, ...(folder ? { cache: folder } : {}) }),
  );
}
