/**
 * What each entry of the package loads: a library user's import reaches the protocol's zod-free
 * entry and Node's own modules and nothing else (the parser, tracing and the TypeScript eraser load when a run needs
 * them), and no entry reaches a server, metrics, logging or MCP package, which live in packages of
 * their own and are not this package's dependencies. Walks the built module graph's static imports
 * (the build runs first: turbo's test task depends on it).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { init, parse } from 'es-module-lexer';
import { expect, test } from 'vitest';

const DIST = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  exports: Record<string, unknown>;
};

/** Every bare specifier other than node: reached from `entry` through static imports of relative modules. */
async function staticPackages(entry: string): Promise<Set<string>> {
  await init;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [resolve(DIST, entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const [imports] = parse(readFileSync(file, 'utf8'));
    for (const { type, specifier } of imports) {
      // An import(...) loads only when that line runs, which is the point of each one; an
      // `export * from` loads with the module, as each built entry re-exports its bundle.
      if ((type !== 'static' && type !== 'reexport-star') || typeof specifier !== 'string') continue;
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  }
  return packages;
}

const SERVING_PACKAGES =
  /^(@modelcontextprotocol\/|ws$|pino$|prom-client$|@supolka\/codemode-(server|mcp)\b)/;

test("the library entry loads the protocol's zod-free entry and nothing else", async () => {
  // The schemas (the protocol's main entry, zod, the pool's message table) load with an import()
  // on first need (pool/messages/schemas-on-demand.ts), which this walk rightly does not follow.
  expect([...(await staticPackages('index.js'))].sort()).toEqual(['@supolka/codemode-protocol/wire']);
});

test.each(['index.js', 'sandbox/index.js', 'serving/index.js', 'cli/index.js', 'cli/main.js'])(
  '%s reaches no server, metrics, logging or MCP package',
  async (entry) => {
    const packages = await staticPackages(entry);
    expect(packages.size).toBeGreaterThan(0);
    expect([...packages].filter((name) => SERVING_PACKAGES.test(name))).toEqual([]);
  },
);

/**
 * The build bundles each entry (scripts/bundle-entries.mjs) and leaves in its place a module that
 * re-exports the bundle: each must export what its source declares, no name lost or added, since
 * tsc's declarations beside it still promise the source's names.
 */
test.each([
  ['index.js', () => import('../src/index.ts'), () => import('../dist/index.js')],
  ['sandbox/index.js', () => import('../src/sandbox/index.ts'), () => import('../dist/sandbox/index.js')],
  ['serving/index.js', () => import('../src/serving/index.ts'), () => import('../dist/serving/index.js')],
  ['cli/index.js', () => import('../src/cli/index.ts'), () => import('../dist/cli/index.js')],
])('the built %s exports what its source does', async (_entry, source, built) => {
  const names = (module: object) => Object.keys(module).sort();
  expect(names(await built())).toEqual(names(await source()));
});

test('the package depends on none of them, so installing it installs none', () => {
  expect(Object.keys(manifest.dependencies).filter((name) => SERVING_PACKAGES.test(name))).toEqual([]);
});
