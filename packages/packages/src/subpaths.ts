/**
 * Which specifiers a package offers a program, and the file each loads, read from its package.json
 * as a Worker build reads it: the `exports` map under the conditions `worker`, `browser`, `import`,
 * `module` and `default` (patterns with `*` expanded over the files that match), or, for a package
 * without `exports`, its entry alone (`browser` when a string, else `module`, else `main`, else
 * `index.js`). Node lets a program reach any file of a package without `exports`, but a Worker
 * build of every file is not a Worker build of the package: papaparse's browser entry bundles, and
 * its papaparse.js beside it needs Node's `stream`.
 *
 * A target is a path inside the package: one that does not start with `./`, holds a `..` or
 * `node_modules` segment, or whose real path leaves the package is refused, as Node refuses it.
 * Only JavaScript and JSON files are offered; a subpath to anything else (a stylesheet, a type
 * declaration) is left out.
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { PackageConfigurationError } from './configuration.ts';
import { insideRoots, type LocatedPackage } from './locate.ts';

/** The conditions a Worker build resolves `exports` with, in no order: a conditions object's own order decides. */
export const CONDITIONS: ReadonlySet<string> = new Set(['worker', 'browser', 'import', 'module', 'default']);

/** Specifiers one package may offer: date-fns offers 740. */
export const SUBPATH_LIMIT = 5000;

/**
 * How deep conditions and fallback lists may nest in one `exports` target: packages nest two or
 * three, and reading a map nested without bound would exhaust the host's stack.
 */
export const TARGET_DEPTH_LIMIT = 32;

const LOADABLE = /\.(?:js|mjs|cjs|json)$/;

/** Each specifier the package offers (`zod`, `zod/mini`), with the real path of its file. */
export function offeredSubpaths(located: LocatedPackage): Map<string, string> {
  const offered = new Map<string, string>();
  const add = (subpath: string, file: string | undefined) => {
    if (file === undefined || !LOADABLE.test(file)) return;
    if (offered.size >= SUBPATH_LIMIT) {
      throw new PackageConfigurationError(
        `The package ${located.name} offers more than ${SUBPATH_LIMIT} subpaths; that many are not bundled.`,
      );
    }
    offered.set(subpath === '.' ? located.name : `${located.name}/${subpath.slice(2)}`, file);
  };
  const { exports } = located.manifest;
  if (exports === undefined || exports === null) {
    add('.', mainFile(located));
    return offered;
  }
  for (const [subpath, target] of subpathMap(exports)) {
    if (subpath === './package.json') continue;
    if (!subpath.includes('*')) {
      const resolved = resolveTarget(target, located.name);
      if (resolved !== undefined) add(subpath, insideFile(located, resolved));
      continue;
    }
    for (const [expanded, file] of expandPattern(located, subpath, target)) add(expanded, file);
  }
  return offered;
}

/** `exports` as a map of subpath → target: a lone target or a conditions object is the `.` subpath. */
function subpathMap(exports: unknown): [string, unknown][] {
  if (typeof exports === 'string' || Array.isArray(exports)) return [['.', exports]];
  if (typeof exports !== 'object' || exports === null) return [];
  const keys = Object.keys(exports);
  if (keys.length > 0 && keys.every((key) => key.startsWith('.'))) {
    return Object.entries(exports as Record<string, unknown>);
  }
  return [['.', exports]];
}

/**
 * A target under the conditions: the first that matches, depth first in the object's own order;
 * undefined for null or none. `name` is the package's, for the refusal of a map nested past
 * TARGET_DEPTH_LIMIT.
 */
export function resolveTarget(target: unknown, name: string, depth = 0): string | undefined {
  if (typeof target === 'string') return target;
  if (depth >= TARGET_DEPTH_LIMIT && typeof target === 'object' && target !== null) {
    throw new PackageConfigurationError(
      `The package ${name} nests the conditions of its exports deeper than ${TARGET_DEPTH_LIMIT} levels; such a map is not read.`,
    );
  }
  if (Array.isArray(target)) {
    for (const candidate of target) {
      const resolved = resolveTarget(candidate, name, depth + 1);
      if (resolved !== undefined) return resolved;
    }
    return undefined;
  }
  if (typeof target !== 'object' || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (!CONDITIONS.has(condition)) continue;
    const resolved = resolveTarget(value, name, depth + 1);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

/** Whether a target path is one Node accepts: `./` first, no `..`, `.` or `node_modules` segment after it. */
function validTarget(target: string): boolean {
  if (!target.startsWith('./')) return false;
  return target
    .slice(2)
    .split(/[/\\]/)
    .every((segment) => segment !== '..' && segment !== '.' && segment.toLowerCase() !== 'node_modules');
}

/** The real path of the file `target` names inside the package; undefined when it is not a file there. */
function insideFile(located: LocatedPackage, target: string): string | undefined {
  if (!validTarget(target)) return undefined;
  const path = join(located.root, target);
  if (!existsSync(path)) return undefined;
  const real = realpathSync(path);
  if (!insideRoots(real, [located.root]) || !statSync(real).isFile()) return undefined;
  return real;
}

/** The entry of a package without `exports`, as a bundler for the browser finds it. */
function mainFile(located: LocatedPackage): string | undefined {
  const { browser, module, main } = located.manifest;
  for (const field of [browser, module, main, './index.js']) {
    if (typeof field !== 'string' || field === '') continue;
    const target = field.startsWith('./') ? field : `./${field}`;
    for (const candidate of [target, `${target}.js`, `${target}/index.js`]) {
      const file = insideFile(located, candidate.replace(/\/\/+/g, '/'));
      if (file !== undefined) return file;
    }
  }
  return undefined;
}

/** A pattern subpath (`./locales/*`) expanded over the files its target (`./dist/locales/*.js`) matches. */
function expandPattern(located: LocatedPackage, subpath: string, target: unknown): [string, string][] {
  const resolved = resolveTarget(target, located.name);
  if (resolved === undefined || resolved.split('*').length !== 2 || subpath.split('*').length !== 2)
    return [];
  const [prefix, suffix] = resolved.split('*') as [string, string];
  const [keyPrefix, keySuffix] = subpath.split('*') as [string, string];
  if (!validTarget(prefix.endsWith('/') ? `${prefix}x` : prefix)) return [];
  const slash = prefix.lastIndexOf('/');
  const directory = join(located.root, prefix.slice(0, slash + 1));
  if (!existsSync(directory)) return [];
  const expanded: [string, string][] = [];
  for (const file of walk(directory, SUBPATH_LIMIT)) {
    const relativePath = `./${relative(located.root, file).split(sep).join('/')}`;
    if (!relativePath.startsWith(prefix) || !relativePath.endsWith(suffix)) continue;
    const middle = relativePath.slice(prefix.length, relativePath.length - suffix.length);
    if (middle === '') continue;
    const real = insideFile(located, relativePath);
    if (real !== undefined) expanded.push([`${keyPrefix}${middle}${keySuffix}`, real]);
  }
  return expanded;
}

/** The files under `directory`, at most `limit` of them, never through a node_modules folder. */
function walk(directory: string, limit: number): string[] {
  const files: string[] = [];
  const pending = [directory];
  for (let next = pending.pop(); next !== undefined && files.length < limit; next = pending.pop()) {
    for (const entry of readdirSync(next, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(next, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) files.push(path);
    }
  }
  return files;
}
