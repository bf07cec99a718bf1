/** TypeScript in the code and in .ts modules: types erased in place, constructs that need more refused by name. */
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

test('annotations, generics, casts and type-only imports are erased; positions stay', async () => {
  const envelope = await sandbox.execute({
    modules: {
      'lib.ts': 'export interface Shape { w: number }\nexport const area = (s: Shape): number => s.w * 2',
    },
    code: `import type { Shape } from './lib.ts'
import { area } from './lib.ts'
async (): Promise<number[]> => {
  const shape: Shape = { w: 21 } satisfies Shape
  const list = new Array<number>()
  list.push(area(shape as Shape)!)
  const stack = new Error('here').stack as string
  return [...list, Number(stack.match(/executor.js:(\\d+)/)?.[1])]
}`,
  });
  // The entry puts two lines ahead of the user's first; the error's line is the one the user wrote plus them.
  expect(envelope).toStrictEqual({ result: [42, expect.any(Number)], logs: [] });
});

test('enums, namespaces and parameter properties are refused, naming the construct and the line', async () => {
  const cases: [string, string][] = [
    ['enum Color { Red }\nasync () => Color.Red', 'TypeScript enum'],
    ['async () => { class A { constructor(private x: number) {} } }', 'TypeScript parameter property'],
  ];
  for (const [code, construct] of cases) {
    const envelope = await sandbox.execute({ code });
    expect(envelope.error).toMatch(
      new RegExp(`^${construct} \\(executor.js, line \\d+\\) needs more than type erasure`),
    );
  }
  const inModule = await sandbox.execute({
    modules: { 'ns.ts': 'namespace N { export const a = 1 }' },
    code: `import './ns.ts'\nasync () => 1`,
  });
  expect(inModule.error).toMatch(/^TypeScript namespace declaration \(ns\.ts, line 1\)/);
});

test('switched off, TypeScript is JavaScript and the engine reports it', async () => {
  const envelope = await sandbox.execute({
    typescript: false,
    code: 'async () => { const x: number = 1; return x }',
  });
  expect(envelope.error).toMatch(/Unexpected token ':'|Missing initializer/);
});

test('a syntax error is the engine own, not the stripper', async () => {
  const envelope = await sandbox.execute({ code: 'async () => {' });
  expect(envelope.error).toMatch(/^Unexpected token/);
});
