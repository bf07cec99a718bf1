/**
 * CODE_LIMIT and MODULE_SOURCE_LIMIT checked on a request that did not come through the request
 * schema (an in-process Sandbox has none in front of it), in the schema's own words, so a request
 * refused here reads the same as one refused on the wire.
 */
import { BadRequestError } from './errors.ts';
import { CODE_LIMIT, CODE_LIMIT_RULE, MODULE_SOURCE_LIMIT, MODULE_SOURCE_LIMIT_RULE } from './limits.ts';
import { formatPath } from './message-wire.ts';
import type { ModuleMap } from './schemas/request.ts';

/** The sentence a request past one of the source limits is refused with. */
export function sourceLimitMessage(path: readonly PropertyKey[], rule: string): string {
  return `Invalid execute request: ${formatPath(path)} ${rule}.`;
}

/** Throws BadRequestError when the code or a module source is past its limit. */
export function checkSourceLimits(code: string, modules: ModuleMap | undefined): void {
  if (code.length > CODE_LIMIT) throw new BadRequestError(sourceLimitMessage(['code'], CODE_LIMIT_RULE));
  for (const [name, entry] of Object.entries(modules ?? {})) {
    if (typeof entry === 'string') {
      if (entry.length > MODULE_SOURCE_LIMIT) {
        throw new BadRequestError(sourceLimitMessage(['modules', name], MODULE_SOURCE_LIMIT_RULE));
      }
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    for (const kind of ['js', 'cjs'] as const) {
      const source = Object.hasOwn(entry, kind) ? entry[kind] : undefined;
      if (typeof source === 'string' && source.length > MODULE_SOURCE_LIMIT) {
        throw new BadRequestError(sourceLimitMessage(['modules', name, kind], MODULE_SOURCE_LIMIT_RULE));
      }
    }
  }
}
