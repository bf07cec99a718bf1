/**
 * What every door needs to allow the matrix's packages (package-rows.ts): the two packages in
 * fixtures/packages, by name and directory as the executor's option, the server's and the bridge's
 * config take them, and the test for a row that needs them. A door builds its instance with the
 * packages only for these rows, so every other row's not-found sentence stays the plain one.
 */
import { join } from 'node:path';
import type { Behaviour } from './door.ts';

/** The folder the fixture packages are in, one folder each, named as the package. */
export const PACKAGES_FOLDER = new URL('./fixtures/packages/', import.meta.url).pathname;

/** The allowed packages, in the order every configuration names them (the not-found sentence's). */
export const ALLOWED_PACKAGES = ['matrix-text', 'matrix-greeting'] as const;

/** name → directory: the `packages` option of IsolateExecutor, of the server's executor and of the bridge's config. */
export const PACKAGE_DIRECTORIES: Readonly<Record<string, string>> = Object.fromEntries(
  ALLOWED_PACKAGES.map((name) => [name, join(PACKAGES_FOLDER, name)]),
);

/** Whether the row imports the matrix's packages, so its door's instance must allow them. */
export function usesPackages(behaviour: Behaviour): boolean {
  return behaviour.needs?.includes('packages') === true;
}
