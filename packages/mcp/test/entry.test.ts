/**
 * The MCP SDK is the mcp command's alone: neither the package's main entry nor the command's own
 * entry reaches it through a static import, so `import '@supolka/codemode-executor'`, `run` and
 * `serve` never load it. Walks the built module graph (`npx tsc -p tsconfig.build.json` first).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { init, parse } from 'es-module-lexer';
import { expect, test } from 'vitest';

const DIST = new URL('../../dist/', import.meta.url).pathname;

/** Every bare specifier reached from `entry` through static imports of relative modules. */
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
      // An import(...) loads only when that line runs: the mcp command's is the point.
      if (type !== 'static' || typeof specifier !== 'string') continue;
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  }
  return packages;
}

test.each(['index.js', 'cli/main.js', 'sandbox/index.js'])(
  '%s never imports the MCP SDK statically',
  async (entry) => {
    const packages = await staticPackages(entry);
    expect(packages.size).toBeGreaterThan(0);
    expect([...packages].filter((name) => name.startsWith('@modelcontextprotocol/'))).toEqual([]);
  },
);

test('the mcp command itself does', async () => {
  expect(
    [...(await staticPackages('mcp/command.js'))].some((name) =>
      name.startsWith('@modelcontextprotocol/sdk/'),
    ),
  ).toBe(true);
});
