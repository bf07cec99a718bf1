/**
 * Whether the installed isolated-vm can serve this package, decided before anything loads it: a
 * native addon that cannot load takes its process down at import with Node's own text, and a
 * release outside the supported range may load and misbehave. Either way the caller gets one
 * sentence naming isolated-vm, the version found, the range this package supports and the
 * command that fixes it. No import of isolated-vm here: this module must load where it cannot.
 */
import { createRequire } from 'node:module';

/** The isolated-vm releases this package is tested with: its peer range (package.json). */
export const SUPPORTED_ISOLATED_VM = '^7.0.1';

/** The isolated-vm release installed where this package loads it from, or undefined when none is. */
export function installedIsolatedVm(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url)('isolated-vm/package.json') as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `version` (x.y.z) satisfies a range of caret terms joined by `||`, as the peer range is written. */
export function satisfiesCaretRange(version: string, range: string): boolean {
  const found = parseVersion(version);
  if (found === undefined) return false;
  return range.split('||').some((term) => {
    const floor = parseVersion(term.trim().replace(/^\^/, ''));
    if (floor === undefined) return false;
    // A caret keeps the first non-zero part; every range this package names has a non-zero major.
    if (found[0] !== floor[0]) return false;
    return found[1] > floor[1] || (found[1] === floor[1] && found[2] >= floor[2]);
  });
}

function parseVersion(text: string): [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/**
 * Why the installed isolated-vm cannot serve this package, as one sentence (with no full stop: the
 * pool puts it inside its own), or undefined when it loads and its release is in range. `load` imports the addon (the caller's, so a test can name
 * which); it runs only for a release in range.
 */
export async function isolatedVmProblem(
  load: () => Promise<unknown> = () => import('isolated-vm'),
  found: string | undefined = installedIsolatedVm(),
): Promise<string | undefined> {
  const node = process.version;
  const install = `\`npm install isolated-vm@${SUPPORTED_ISOLATED_VM}\` run under Node ${node} fixes it`;
  if (found === undefined) {
    return `isolated-vm is not installed where this package loads it from: this package supports isolated-vm ${SUPPORTED_ISOLATED_VM}, and ${install}`;
  }
  if (!satisfiesCaretRange(found, SUPPORTED_ISOLATED_VM)) {
    return `isolated-vm ${found} is installed, outside the range this package supports (${SUPPORTED_ISOLATED_VM}): ${install}`;
  }
  try {
    await load();
    return undefined;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    // A rebuild under this Node makes the binary it lacks, or fetches the release's own.
    const rebuild = `this package supports isolated-vm ${SUPPORTED_ISOLATED_VM}, and \`npm rebuild isolated-vm\` run under Node ${node} fixes it`;
    const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(text);
    if (abi) {
      return `isolated-vm ${found} has a binary built for another Node (NODE_MODULE_VERSION ${abi[1]}; Node ${node} needs ${abi[2]}): ${rebuild}`;
    }
    if (/No native build was found|Cannot find module .*\.node|isolated_vm/.test(text)) {
      return `isolated-vm ${found} has no binary Node ${node} can load on ${process.platform}-${process.arch} (${firstLine(text)}): ${rebuild}`;
    }
    return `isolated-vm ${found} could not load under Node ${node} (${firstLine(text)}): ${rebuild}`;
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? '';
}
