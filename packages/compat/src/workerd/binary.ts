/**
 * Where the workerd binary is. The registry package `workerd` resolves its platform package's
 * binary (@cloudflare/workerd-<platform>) in its main export; CODEMODE_COMPAT_WORKERD overrides it,
 * for a locally built workerd or a platform the package does not ship.
 */
import { createRequire } from 'node:module';

export const WORKERD_PATH_VARIABLE = 'CODEMODE_COMPAT_WORKERD';

export function workerdBinary(): string {
  const override = process.env[WORKERD_PATH_VARIABLE];
  if (override !== undefined && override !== '') return override;
  // The package is CommonJS; its default export is the binary's absolute path.
  const require = createRequire(import.meta.url);
  return (require('workerd') as { default: string }).default;
}

/** The version the binary ships with: the npm version, whose date part is workerd's release. */
export function workerdVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('workerd') as { version: string }).version;
}
