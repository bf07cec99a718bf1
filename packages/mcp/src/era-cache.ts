/**
 * Which protocol era each stdio upstream speaks, remembered between bridge processes (issue 28):
 * without it every bridge start asks `server/discover` on a disposable second process of the
 * upstream's command before starting the real one (the SDK's way for its own stdio transport), and
 * a desktop client starts a new bridge every session. Measured on server-memory: about 150 ms of
 * the bridge's start.
 *
 * Only the era's name and when it was learnt are kept, never the server's DiscoverResult: what a
 * server says of itself (its instructions, its name) reaches a model, and is read from the server
 * at each start, never from disk. So a remembered `legacy` lets the connection skip the probe and
 * run the `initialize` handshake (upstream.ts), and a remembered `modern` lets it probe on the
 * session's own process instead of a second one. A legacy verdict is trusted for LEGACY_HORIZON
 * only: an upgraded server still answers `initialize`, so a stale one would never be noticed.
 *
 * An entry is named by a digest of everything that decides which server runs (command, arguments,
 * folder, environment, values included, which may be secrets and are never written out), in the
 * executor's trusted cache folder (`mcp-eras` under the cache root; off under CODEMODE_CACHE=off),
 * read and written by its rules (trusted-directory.ts). Nothing here throws or waits: a folder or
 * entry that fails its checks reads as nothing remembered, and a write that fails is dropped.
 */
import { createHash } from 'node:crypto';
import {
  cacheFolder,
  MCP_ERAS_CACHE_FOLDER,
  openTrustedDirectory,
  type TrustedDirectory,
} from '@supolka/codemode-executor/serving';

/** The era an upstream's last probe found: the current revision's, or the handshake's. */
export type RememberedEra = 'legacy' | 'modern';

/** What starts a stdio upstream, as the transport is handed it: the entry's key. */
export interface StdioLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The folder the command runs in (the bridge's own when the config names none). */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * How long a remembered `legacy` is taken on trust: past it the upstream is probed again, so a
 * server upgraded to the current revision is served on it by the next day's first start. A
 * remembered `modern` needs no horizon: its connection probes, and a server that changed is seen.
 */
export const LEGACY_HORIZON = 24 * 60 * 60 * 1000;
/** Bytes an entry may hold when read: one is some 40; anything much larger is not this code's. */
export const ENTRY_LIMIT = 4096;
/** How many entries the folder keeps (the least used go first): a config edited often leaves old keys. */
const BOUNDS = { maxEntries: 256, maxBytes: 256 * 64 };
/** A clock this far behind an entry's time still takes it; further, the entry is not believed. */
const CLOCK_SLACK = 60_000;
/** Changed whenever the digest's input or the entry's shape changes, so old entries go unread. */
const KEY_VERSION = 'codemode-mcp-era-1';

export class EraCache {
  /** The folder once found, or null when the caches are off or it failed its checks. */
  #folder: string | null | undefined;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #now: () => number;

  constructor(env: Readonly<Record<string, string | undefined>> = process.env, now: () => number = Date.now) {
    this.#env = env;
    this.#now = now;
  }

  /** The era remembered for `launch`, when one is there, passes its checks and is fresh enough. */
  recall(launch: StdioLaunch): RememberedEra | undefined {
    const read = this.#open()?.read(entryName(launch), ENTRY_LIMIT);
    if (read === undefined || 'refused' in read) return undefined;
    return parseEntry(read.bytes, this.#now());
  }

  /** Keeps `era` as learnt now for `launch`, in place of what was there. */
  remember(launch: StdioLaunch, era: RememberedEra): void {
    const folder = this.#open();
    if (folder === undefined) return;
    const name = entryName(launch);
    const entry = `${JSON.stringify({ era, learnt: this.#now() })}\n`;
    if (folder.write(name, [Buffer.from(entry)])) folder.evict(BOUNDS, name);
  }

  /** Drops what is remembered for `launch`: its connection failed, so the next one probes. */
  forget(launch: StdioLaunch): void {
    this.#open()?.remove(entryName(launch));
  }

  /**
   * The folder, checked again at each use (its mode or owner may change while the bridge runs); made
   * and checked first by the executor's own rules, once per process, which warn once if it is refused.
   */
  #open(): TrustedDirectory | undefined {
    if (this.#folder === undefined)
      this.#folder = cacheFolder(true, MCP_ERAS_CACHE_FOLDER, this.#env) ?? null;
    if (this.#folder === null) return undefined;
    const opened = openTrustedDirectory(this.#folder, { create: false });
    return 'directory' in opened ? opened.directory : undefined;
  }
}

/** The entry's name: a digest of the launch, so no part of it (an environment value) is written out. */
export function entryName(launch: StdioLaunch): string {
  const env = Object.entries(launch.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const input = JSON.stringify([KEY_VERSION, launch.command, launch.args, launch.cwd, env]);
  return createHash('sha256').update(input).digest('hex');
}

/**
 * The era an entry's bytes hold, or undefined for anything but exactly what `remember` writes (an
 * era this code knows and a time not in the future), and for a legacy verdict past the horizon.
 */
function parseEntry(bytes: Buffer, now: number): RememberedEra | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const { era, learnt, ...rest } = entry as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return undefined;
  if (era !== 'legacy' && era !== 'modern') return undefined;
  if (typeof learnt !== 'number' || !Number.isSafeInteger(learnt) || learnt < 0) return undefined;
  if (learnt > now + CLOCK_SLACK) return undefined;
  if (era === 'legacy' && now - learnt > LEGACY_HORIZON) return undefined;
  return era;
}
