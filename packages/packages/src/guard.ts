/**
 * The esbuild plugin every package build runs under: what a bundle may read, and what it may
 * not need.
 *
 * - Every bare import is resolved by esbuild itself (the package's `exports`, its `browser` field,
 *   its `node_modules`), and the file it lands on is then taken by its real path, which must lie
 *   inside the package or one of its declared dependencies (locate.ts, readableRoots). Relative
 *   imports, tens of thousands in date-fns, stay esbuild's alone (a plugin call for each took
 *   bundling from seconds to minutes), and checkInputs then holds every file the build read to the
 *   same rule: no symbolic link, `exports` target or `../` reaches another file of the host.
 * - A Node built-in (`fs`, `node:crypto`) that the package's `browser` field does not replace is
 *   refused with a sentence naming the import and the file that makes it: a program's isolate
 *   has no Node built-ins, so a package that needs one cannot be allowed.
 * - A specifier another allowed package offers stays outside the bundle, required at run time from
 *   that package's own script, so two allowed packages share one copy of the one they both use.
 * - Only JavaScript and JSON are loaded (checkInputs): a stylesheet, a TypeScript file or a
 *   binary the package imports is refused, by name.
 */
import { realpathSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import type { Metafile, Plugin } from 'esbuild';
import { PackageConfigurationError } from './configuration.ts';
import { insideRoots } from './locate.ts';

export interface GuardOptions {
  /** The package being bundled, for the sentences. */
  readonly name: string;
  /** Real directories the bundle may read from. */
  readonly roots: readonly string[];
  /** Specifiers of the other allowed packages, each the name of the package that offers it. */
  readonly external: ReadonlyMap<string, string>;
  /** Filled with the other allowed packages the bundle requires at run time. */
  readonly requires: Set<string>;
}

const LOADABLE = /\.(?:js|mjs|cjs|json)$/;

export function builtinMessage(name: string, specifier: string, importer: string): string {
  return `The package ${name} needs the Node built-in '${specifier}' (imported by ${importer}), and a program's isolate has no Node built-ins: it cannot be allowed.`;
}

export function guardPlugin(options: GuardOptions): Plugin {
  return {
    name: 'codemode-guard',
    setup(build) {
      // Bare specifiers only: they cross package boundaries (node_modules, `exports`, links), and
      // there are few of them. Relative imports stay esbuild's; checkInputs judges every file read.
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        // The resolution this callback asks for itself.
        if ((args.pluginData as { guarded?: boolean } | undefined)?.guarded === true) return undefined;
        const owner = options.external.get(args.path);
        if (owner !== undefined) {
          options.requires.add(owner);
          return { path: args.path, external: true };
        }
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { guarded: true },
          with: args.with,
        });
        if (resolved.errors.length > 0) {
          if (isBuiltin(args.path)) {
            return {
              errors: [{ text: builtinMessage(options.name, args.path, args.importer || 'its entry') }],
            };
          }
          return { errors: resolved.errors };
        }
        // Replaced by nothing through the browser field: esbuild makes it an empty module, reading no file.
        if (resolved.namespace !== 'file') return undefined;
        const real = realpathSync(resolved.path);
        if (!insideRoots(real, options.roots))
          return { errors: [{ text: outsideMessage(options.name, args.path, real) }] };
        return { path: real, sideEffects: resolved.sideEffects };
      });
    },
  };
}

function outsideMessage(name: string, specifier: string, real: string): string {
  return `'${specifier}' is ${real}, outside the package ${name} and its declared dependencies.`;
}

/**
 * Every file a build read, from its metafile: each must be JavaScript or JSON, and its real path
 * inside the roots. Throws the sentence for the first that is not; answers their real paths.
 */
export function checkInputs(
  name: string,
  metafile: Metafile,
  workingDirectory: string,
  roots: readonly string[],
): string[] {
  const read: string[] = [];
  for (const input of Object.keys(metafile.inputs)) {
    // <stdin> is the registry this package writes; `namespace:path` is no file (a disabled module).
    if (input.startsWith('<') || /^[a-z-]*:/i.test(input)) continue;
    const path = resolve(workingDirectory, input);
    const real = realpathSync(path);
    if (!insideRoots(real, roots)) throw new PackageConfigurationError(outsideMessage(name, input, real));
    if (!LOADABLE.test(real)) {
      throw new PackageConfigurationError(
        `The package ${name} loads ${real}, which is not JavaScript or JSON, the only files a bundle loads.`,
      );
    }
    read.push(real);
  }
  return read;
}
