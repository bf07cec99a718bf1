/**
 * The module map `--modules PATH` names: a JSON file holding one, or a directory whose files are
 * modules keyed by their path inside it (`lib/util.js`). The directory is read by this process
 * before any bound of the executor applies, so the walk is bounded itself: MODULE_LIMIT entries,
 * PAYLOAD_LIMIT bytes in all (the map crosses to the child in one message of at most that),
 * MODULES_DEPTH_LIMIT directories deep, no link that leaves the directory or leads back into one
 * it is inside of, nothing that is not a file or a directory (a FIFO would wait for ever),
 * and only UTF-8 text. Each refusal is a UsageError naming the file.
 *
 * A file's extension gives its kind: `.json` a json module, `.cjs` CommonJS, `.js`, `.mjs`, `.ts`
 * and `.mts` ES module source (the sandbox erases the types of the TypeScript ones), any other a
 * text module. Names starting with a dot (.git, .DS_Store) are skipped.
 */
import type { Dirent } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import {
  MODULE_LIMIT,
  type ModuleEntry,
  type ModuleMap,
  PAYLOAD_LIMIT,
} from '@supolka/codemode-protocol/wire';
import { UsageError } from './args.ts';
import { readTextFile } from './read-text-file.ts';

/** Directories below the one --modules names that its files may sit in. */
export const MODULES_DEPTH_LIMIT = 16;

export function notAModuleMapMessage(path: string): string {
  return `--modules ${path} must hold a JSON object mapping module names to modules.`;
}

export function notJsonMessage(what: string, reason: string): string {
  return `${what} is not JSON: ${reason}`;
}

export function tooManyModulesMessage(path: string): string {
  return `--modules ${path} holds more than ${MODULE_LIMIT} files and directories (MODULE_LIMIT).`;
}

export function modulesTooLargeMessage(path: string, file: string): string {
  return `--modules ${path}: with ${file}, its files hold more than ${PAYLOAD_LIMIT} bytes (PAYLOAD_LIMIT).`;
}

export function modulesTooDeepMessage(path: string, directory: string): string {
  return `--modules ${path}: ${directory} is more than ${MODULES_DEPTH_LIMIT} directories deep (MODULES_DEPTH_LIMIT).`;
}

export function linkLeavesMessage(path: string, link: string): string {
  return `--modules ${path}: ${link} is a link to a place outside ${path}; links must stay inside it.`;
}

export function linkCycleMessage(path: string, link: string): string {
  return `--modules ${path}: ${link} is a link to a directory it is inside of, a cycle.`;
}

export function notFileOrDirectoryMessage(path: string, name: string): string {
  return `--modules ${path}: ${name} is neither a file nor a directory.`;
}

export async function loadModules(path: string): Promise<ModuleMap> {
  const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`Cannot read --modules ${path}: ${error.code ?? error.message}.`);
  });
  if (found.isDirectory()) return readDirectory(path);
  const what = `--modules ${path}`;
  const text = await readTextFile(path, PAYLOAD_LIMIT, what);
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch (error) {
    throw new UsageError(notJsonMessage(what, (error as Error).message));
  }
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    throw new UsageError(notAModuleMapMessage(path));
  }
  // The executor checks each entry, and says which one does not hold.
  return map as ModuleMap;
}

interface Pending {
  readonly directory: string;
  /** The key prefix of the files in it: '' at the top, then `lib/`. */
  readonly prefix: string;
  readonly depth: number;
  /** The real paths of the directory and of those it is inside of, for a link back into one. */
  readonly within: readonly string[];
}

/**
 * The directory listed first, every bound but the text checked from the listing, then read: a
 * directory past a bound is refused before any file in it is opened.
 */
async function readDirectory(path: string): Promise<ModuleMap> {
  const files = await listDirectory(path);
  const modules: Record<string, ModuleEntry> = {};
  let bytes = 0;
  for (const { full, key, size } of files) {
    const text = await readTextFile(full, PAYLOAD_LIMIT - bytes, `--modules ${path}: ${key}`);
    bytes += size;
    // Defined, not assigned: a file named __proto__ is a module, not the map's prototype.
    Object.defineProperty(modules, key, {
      value: toEntry(path, key, text),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return modules;
}

interface Listed {
  readonly full: string;
  readonly key: string;
  readonly size: number;
}

async function listDirectory(path: string): Promise<Listed[]> {
  const top = await realpath(path);
  const files: Listed[] = [];
  const pending: Pending[] = [{ directory: path, prefix: '', depth: 0, within: [top] }];
  let entries = 0;
  let bytes = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { directory, prefix, depth, within } = next;
    for await (const entry of await opendir(directory)) {
      if (entry.name.startsWith('.')) continue;
      entries += 1;
      if (entries > MODULE_LIMIT) throw new UsageError(tooManyModulesMessage(path));
      const key = prefix + entry.name;
      const full = join(directory, entry.name);
      const kind = await kindOf(entry, full, path, top, key);
      if (kind === 'directory') {
        if (depth + 1 > MODULES_DEPTH_LIMIT) throw new UsageError(modulesTooDeepMessage(path, key));
        // A second name for a directory only reads it again, within the bounds; a cycle never ends.
        const real = await realpath(full);
        if (within.includes(real)) throw new UsageError(linkCycleMessage(path, key));
        pending.push({ directory: full, prefix: `${key}/`, depth: depth + 1, within: [...within, real] });
        continue;
      }
      const size = (await stat(full)).size;
      bytes += size;
      if (bytes > PAYLOAD_LIMIT) throw new UsageError(modulesTooLargeMessage(path, key));
      files.push({ full, key, size });
    }
  }
  return files;
}

/** What an entry is once links are followed; a link must stay inside the directory. */
async function kindOf(
  entry: Dirent,
  full: string,
  path: string,
  top: string,
  key: string,
): Promise<'file' | 'directory'> {
  let target: { isFile(): boolean; isDirectory(): boolean } = entry;
  if (entry.isSymbolicLink()) {
    // A link to nothing is neither a file nor a directory.
    const real = await realpath(full).catch(() => {
      throw new UsageError(notFileOrDirectoryMessage(path, key));
    });
    const inside = relative(top, real);
    if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
      throw new UsageError(linkLeavesMessage(path, key));
    }
    target = await stat(real);
  }
  if (target.isDirectory()) return 'directory';
  if (target.isFile()) return 'file';
  throw new UsageError(notFileOrDirectoryMessage(path, key));
}

function toEntry(path: string, key: string, text: string): ModuleEntry {
  if (key.endsWith('.json')) {
    try {
      return { json: JSON.parse(text) };
    } catch (error) {
      throw new UsageError(notJsonMessage(`--modules ${path}: ${key}`, (error as Error).message));
    }
  }
  if (key.endsWith('.cjs')) return { cjs: text };
  if (/\.m?[jt]s$/.test(key)) return text;
  return { text };
}
