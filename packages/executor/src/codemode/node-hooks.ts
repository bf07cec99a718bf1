/**
 * registerCloudflareWorkersStub: lets Node load `@cloudflare/codemode/ai` and the package's root
 * entry, which import `cloudflare:workers` at load and fail there with ERR_UNSUPPORTED_ESM_URL_SCHEME.
 * A synchronous module hook (Node's `module.registerHooks`) resolves that one specifier to the
 * stand-ins of workers-stub.ts, for `import` and `require` alike, in this thread. Call it before the
 * first import of those entries: in a module loaded with `node --import`, or ahead of a dynamic
 * `import()`.
 */
// A namespace import: a named one would fail the link below Node 23.5, before the floor's sentence.
import * as nodeModule from 'node:module';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLOUDFLARE_WORKERS_SPECIFIER = 'cloudflare:workers';

let registered = false;

/** Idempotent: the hook is registered once per thread. */
export function registerCloudflareWorkersStub(): void {
  if (registered) return;
  registered = true;
  // The stand-ins' own module, beside this one: the file a bundler or test runner aliases, so both
  // serve exactly the same stand-ins. (Once built from the classes' source text, which the package's
  // bundle, where a class may be an anonymous class expression, no longer keeps.)
  const url = new URL(`./workers-stub${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
  nodeModule.registerHooks({
    resolve: (specifier, context, next) =>
      specifier === CLOUDFLARE_WORKERS_SPECIFIER ? { url, shortCircuit: true } : next(specifier, context),
  });
}
