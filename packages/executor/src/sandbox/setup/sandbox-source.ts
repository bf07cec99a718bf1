/**
 * SANDBOX_SOURCE: the sandbox's own code inside the isolate, run once per process into the startup
 * snapshot after the runtime bundle. It builds the console, which needs nothing from the host but
 * its sink, and defines one function, __prepareSandbox (inside/prepare.ts), which every restored
 * isolate calls once, with the host references, to install each piece in the chapter's order: the
 * console's sink, the runtime handshake, the timers, the dispatch bridge, the import() loader, the
 * completion names, and the run support the entry imports. Every piece is
 * compiled in one strict scope with the dispatch codec, whose names the run support calls.
 *
 * Living in the snapshot, none of this is parsed again per isolate, and WARMUP_SOURCE
 * (inside/warmup.ts) has V8 compile every function of the path a run takes while the snapshot is
 * made, so a prepared isolate starts with bytecode instead of compiling its own machinery
 * (docs/sandbox.md measures it).
 */
import { DISPATCH_CODEC_SOURCE } from '../codec.ts';
import { CONSOLE_SOURCE } from '../console.ts';
import { DISPATCH_SOURCE } from '../dispatch.ts';
import { RUN_SUPPORT_SOURCE } from '../entry/internal-module.ts';
import { PREPARE_INSTALL_SOURCE, WARMUP_INSTALL_SOURCE } from '../generated/sandbox-sources.generated.ts';
import { LOADER_SOURCE } from '../modules/loader.ts';
import { RUN_SOURCE } from '../timeout.ts';
import { TIMERS_SOURCE } from '../timers.ts';
import { BINDINGS_SOURCE } from './runtime-bindings.ts';

export const SANDBOX_SOURCE = `(() => {
'use strict';
${DISPATCH_CODEC_SOURCE}
${PREPARE_INSTALL_SOURCE}({
  console: ${CONSOLE_SOURCE},
  bindings: ${BINDINGS_SOURCE},
  timers: ${TIMERS_SOURCE},
  dispatch: ${DISPATCH_SOURCE},
  loader: ${LOADER_SOURCE},
  completion: ${RUN_SOURCE},
  runSupport: ${RUN_SUPPORT_SOURCE},
});
})();`;

/**
 * Runs the preparation and one run's path against stand-ins for the host references, in the
 * throwaway context V8 uses to warm a snapshot up. Only the compiled code is kept.
 */
export const WARMUP_SOURCE = `${WARMUP_INSTALL_SOURCE}();`;
