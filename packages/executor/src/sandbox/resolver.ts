/**
 * How a specifier names a module of the map: the one rule both the linker and the CommonJS facade
 * use. Both functions are also interpolated into each facade as source text, so neither may
 * reference an import or any binding outside itself.
 *
 * Paths are walked segment by segment, never through new URL: a URL percent-encodes its path, so a
 * key spelled `my file.js` would come back as `my%20file.js` and stop matching the map.
 */

/**
 * The canonical spelling of a module key: a path (one starting with /, ./ or ../, or holding a /)
 * loses its dot segments and leading slash; a namespaced name such as `runtime:helpers` and a bare
 * name stay as written.
 */
export function normalizeSpecifier(key: string): string {
  const isPath = key.startsWith('/') || key.startsWith('./') || key.startsWith('../') || key.includes('/');
  if (!isPath || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(key)) return key;
  const segments: string[] = [];
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

/**
 * The map name `specifier` names when imported from the module `referrer` (the entry sits at the
 * root). A relative or absolute path resolves against the referrer's directory. A bare specifier
 * names a sibling of the referrer when the map has one, and otherwise is an exact key.
 */
export function resolveSpecifier(
  specifier: string,
  referrer: string,
  has: (name: string) => boolean,
): string {
  const slash = referrer.lastIndexOf('/');
  const directory = slash === -1 ? '' : referrer.slice(0, slash + 1);
  if (specifier.startsWith('/')) return normalizeSpecifier(specifier);
  if (specifier.startsWith('./') || specifier.startsWith('../'))
    return normalizeSpecifier(directory + specifier);
  if (directory !== '' && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(specifier)) {
    const sibling = normalizeSpecifier(directory + specifier);
    if (has(sibling)) return sibling;
  }
  return specifier.includes('/') ? normalizeSpecifier(specifier) : specifier;
}
