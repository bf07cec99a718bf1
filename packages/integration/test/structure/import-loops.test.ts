/**
 * No module of a package imports itself around a loop. A loop makes evaluation order depend on
 * which module is imported first (a binding read before its module ran is a TDZ error at load), and
 * it ties files together that the layout presents as separate; docs/sandbox.md promises the
 * sandbox has none, and the package split removed the command line's. Each package's sources are
 * read by esbuild, which keeps only the imports that survive type erasure, so a type-only import
 * (which never evaluates anything) is not a loop.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));

/** The package's source modules and, for each, the source modules it imports by value. */
async function importGraph(name: string): Promise<Map<string, string[]>> {
  const src = join(PACKAGES, name, 'src');
  const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts'))
    .map((path) => join(src, path));
  const { metafile } = await build({
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    outdir: join(src, '.import-graph'),
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
    // The isolate-side sources are texts the sandbox compiles, not modules the host imports.
    external: ['codemode:*'],
  });
  const graph = new Map<string, string[]>();
  const root = relative(process.cwd(), src);
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    if (!input.startsWith(root)) continue;
    graph.set(
      input.slice(root.length + 1),
      imports
        .filter(({ path, external }) => !external && path.startsWith(root))
        .map(({ path }) => path.slice(root.length + 1)),
    );
  }
  return graph;
}

/** The strongly connected components of more than one module, and the modules that import themselves. */
function loops(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test.each(['protocol', 'executor', 'server', 'mcp'])('the %s package has no import loop', async (name) => {
  const graph = await importGraph(name);
  expect(graph.size).toBeGreaterThan(5);
  expect(loops(graph)).toStrictEqual([]);
});

test('the check finds a loop when there is one', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  expect(loops(graph)).toStrictEqual([['a.ts', 'b.ts', 'c.ts']]);
});
