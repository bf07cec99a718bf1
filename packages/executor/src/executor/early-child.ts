/**
 * `startFirstChildEarly()`: the commands' way to start the pool's first child before they load
 * (pool/early-child.ts says why and how it is taken over). The child is the one an IsolateExecutor
 * with the options that reach no child (every option at its default but those a command sets that
 * stay in the caller: poolSize, timeouts, durable keys, packages) starts first; a command whose
 * options reach the children spawns its own, and this one is ended unused.
 *
 * Imported by the bins before anything else of theirs, so it loads little: the defaults, the cache
 * folders' checks, and how a child is spawned (`@supolka/codemode-executor/early-child`).
 */
import { childCacheFolders } from '../cache/cache-option.ts';
import { startEarlyChild } from '../pool/early-child.ts';
import { childSettingsOf, withStartPart } from '../pool/settings.ts';
import { warmWindow } from '../sandbox/setup/warm-window.ts';
import {
  DEFAULT_CHILD_EXEC_ARGV,
  DEFAULT_CHILD_RSS_LIMIT,
  DEFAULT_GRACE,
  DEFAULT_MAX_RETAINED_PER_CHILD,
} from './defaults.ts';

/**
 * Starts the child the first pool of this process will take over when its options reach no child;
 * answers its pid, or undefined when this process started one before or none could be started.
 * Never throws: a child not started early is the pool's to start, and its failure the pool's to say.
 */
export function startFirstChildEarly(): number | undefined {
  try {
    // As executor/options.ts resolves each left unset, and as the pool's first child is asked to
    // hand its start on (pool/supervision.ts). Quietly: a command that ends before it builds an
    // executor (a usage error) says nothing of the cache; the executor's own resolution says why a
    // folder is refused.
    const settings = childSettingsOf({
      grace: DEFAULT_GRACE,
      maxRetainedPerChild: DEFAULT_MAX_RETAINED_PER_CHILD,
      allowLinkLocal: false,
      allowLoopback: false,
      allowPrivate: false,
      ownEndpoints: [],
      rssLimit: DEFAULT_CHILD_RSS_LIMIT,
      warmPackages: warmWindow(undefined),
      ...childCacheFolders(undefined, process.env, { quiet: true }),
    });
    return startEarlyChild({
      execArgv: DEFAULT_CHILD_EXEC_ARGV,
      settings: withStartPart(settings, { awaitHandOn: false, handOnWanted: true }),
    });
  } catch {
    return undefined;
  }
}
