/**
 * The two modules the linker writes itself (modules.ts): the scope module, which leaves global
 * scope for the run before a loaded graph evaluates, and the root that loads one module for
 * import() and reports, from inside the isolate, when it has evaluated. Kept apart so the
 * generator of INTERNAL_NAMES lexes them with every other source the sandbox builds.
 */
import { INTERNAL_SPECIFIER } from '../entry/internal-module.ts';

export const SCOPE_PREFIX = 'codemode:scope:';

export const SCOPE_SOURCE = `import { __enterGlobalScope } from ${JSON.stringify(INTERNAL_SPECIFIER)};\n__enterGlobalScope();`;

/** The root that loads `name` for the load numbered `token`. */
export function loaderRootSource(token: number, name: string): string {
  return `import ${JSON.stringify(`${SCOPE_PREFIX}${token}`)};
import * as namespace from ${JSON.stringify(name)};
import { __loaded } from ${JSON.stringify(INTERNAL_SPECIFIER)};
__loaded(${token}, namespace);`;
}
