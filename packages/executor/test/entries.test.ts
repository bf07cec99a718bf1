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
      // An import(...) loads only when that line runs, which is the point of each one.
      if (type !== 'static' || typeof specifier !== 'string') continue;
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

test('the package depends on none of them, so installing it installs none', () => {
  expect(Object.keys(manifest.dependencies).filter((name) => SERVING_PACKAGES.test(name))).toEqual([]);
});
