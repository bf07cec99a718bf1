/**
 * Loads the providers a --tools module exports: its default export (or a named `providers`) is
 * either the list IsolateExecutor takes or an object of namespaces, each an object of functions.
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorText, type ToolFunction } from '@supolka/codemode-protocol/wire';
import type { HostProvider } from '../executor/request.ts';
import { UsageError } from './args.ts';

export async function loadTools(path: string): Promise<HostProvider[]> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (error) {
    // A missing file and a module that throws while loading are both a command line that cannot run.
    throw new UsageError(`--tools ${path} could not be loaded: ${errorText(error)}`);
  }
  const exported = module.default ?? module.providers;
  if (Array.isArray(exported)) return exported as HostProvider[];
  if (typeof exported === 'object' && exported !== null) {
    return Object.entries(exported).map(([name, fns]) => ({
      name,
      fns: fns as Record<string, ToolFunction>,
    }));
  }
  throw new UsageError(
    `--tools ${path} exports no providers: export default a list of { name, fns } or an object { provider: { tool: fn } }.`,
  );
}
