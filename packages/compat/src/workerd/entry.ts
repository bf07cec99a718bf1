/**
 * The modules of one case Worker: the harness (workers/*.worker.js), the protocol's codec, the
 * entry built around the program as the executor builds its own, and the case's module map in the
 * Worker Loader's form. Nothing else of this project enters the case Worker.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ModuleEntry, ModuleMap } from '@supolka/codemode-protocol';
import { separateImports } from '@supolka/codemode-protocol';

export const HARNESS_MODULE = '__codemode_harness.js';
export const SUPPORT_MODULE = '__codemode_support.js';
export const CODEC_MODULE = '__codemode_codec.js';
/** The executor compiles its entry under this name too, so both sides' messages name it alike. */
export const ENTRY_MODULE = 'executor.js';

const WORKERS = new URL('../../workers/', import.meta.url);

let sources: { harness: string; support: string; codec: string } | undefined;

/**
 * The guest sources, read once. The codec is the protocol package's own compiled codec.js (it
 * imports nothing and is the text the executor compiles into every isolate), so both sides
 * encode results and tool arguments by one implementation.
 */
function guestSources(): { harness: string; support: string; codec: string } {
  if (sources === undefined) {
    const protocolIndex = createRequire(import.meta.url).resolve('@supolka/codemode-protocol');
    sources = {
      harness: readFileSync(new URL('harness.worker.js', WORKERS), 'utf8'),
      support: readFileSync(new URL('support.worker.js', WORKERS), 'utf8'),
      codec: readFileSync(join(dirname(protocolIndex), 'codec.js'), 'utf8'),
    };
  }
  return sources;
}

export interface EntryProvider {
  readonly name: string;
  readonly positionalArgs: boolean;
}

/**
 * The entry: the program's imports, one namespace per provider, and the arrow exported for the
 * harness to call. The arrow sits on lines of its own, unrewritten, as in the executor's entry.
 */
export function buildEntry(code: string, providers: readonly EntryProvider[]): string {
  const { imports, body } = separateImports(code);
  return `import { __provider } from ${JSON.stringify(SUPPORT_MODULE)};
${imports.map((declaration) => `${declaration};`).join('\n')}
${providers.map((p) => `const ${p.name} = __provider(${JSON.stringify(p.name)}, ${p.positionalArgs});`).join('\n')}
export const __run = async () => {
return await (
${body}
)();
};
`;
}

/** A module of the map in the Worker Loader's form, by the protocol's precedence of kinds. */
type LoaderModule =
  | { js: string }
  | { cjs: string }
  | { json: unknown }
  | { text: string }
  | { data: string };

function loaderModule(entry: ModuleEntry): LoaderModule | Record<string, never> {
  if (typeof entry === 'string') return { js: entry };
  for (const kind of ['js', 'cjs', 'json', 'text', 'data'] as const) {
    if (Object.hasOwn(entry, kind) && entry[kind] !== undefined)
      return { [kind]: entry[kind] } as LoaderModule;
  }
  // No kind: handed over as it is, so workerd's own refusal is what the case records.
  return {};
}

/** Every module of the case Worker, by name. */
export function caseWorkerModules(
  code: string,
  providers: readonly EntryProvider[],
  modules: ModuleMap | undefined,
): Record<string, unknown> {
  const guest = guestSources();
  const out: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(modules ?? {})) out[name] = loaderModule(entry);
  out[CODEC_MODULE] = { js: guest.codec };
  out[SUPPORT_MODULE] = { js: guest.support };
  out[HARNESS_MODULE] = { js: guest.harness };
  out[ENTRY_MODULE] = { js: buildEntry(code, providers) };
  return out;
}
