/**
 * Declarations generated from JSON Schema, the MCP bridge's and describeTools': what the model
 * reads for each tool, bounded against schemas that are deep, cyclic, explosive through references
 * or simply huge; and every declaration made is TypeScript that parses.
 */
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import {
  DEPTH_LIMIT,
  NODE_BUDGET,
  namespaceDeclaration,
  schemaToType,
  TYPE_LIMIT,
  toolDeclaration,
} from '../../src/tool-schemas/declarations.ts';

// amaro (swc, as Node strips types) refuses TypeScript that does not parse.
const amaro = createRequire(import.meta.url)('amaro') as {
  transformSync(code: string, options: object): unknown;
};

function parses(source: string): boolean {
  try {
    amaro.transformSync(source, { mode: 'strip-only' });
    return true;
  } catch {
    return false;
  }
}

describe('declarations from JSON Schema', () => {
  test('objects, optional and required keys, enums, unions, arrays and descriptions', () => {
    const declaration = toolDeclaration({
      name: 'list-issues',
      description: 'Lists issues. */ not the end',
      inputSchema: {
        type: 'object',
        properties: {
          repo: { type: 'string', description: 'owner/name' },
          state: { enum: ['open', 'closed'] },
          labels: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
          'per-page': { type: ['integer', 'null'] },
        },
        required: ['repo'],
      },
      outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    });
    expect(declaration).toBe(
      [
        '  /** Lists issues. *\\/ not the end */',
        '  list_issues(args: {',
        '    /** owner/name */',
        '    repo: string;',
        '    state?: "open" | "closed";',
        '    labels?: (string | number)[];',
        '    "per-page"?: number | null;',
        '  }): Promise<{',
        '    count: number;',
        '  }>;',
      ].join('\n'),
    );
    expect(parses(namespaceDeclaration('github', [{ name: 'list-issues', inputSchema: {} }]))).toBe(true);
    expect(parses(`declare const x: {\n${declaration}\n};`)).toBe(true);
    expect(parses('declare const x: {')).toBe(false);
  });

  test('a union inside an array is parenthesized', () => {
    expect(
      schemaToType({
        type: 'array',
        items: { oneOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }] },
      }),
    ).toBe('({\n  a?: string;\n} | null)[]');
  });

  test('tuples: prefixItems (2020-12, as zod writes them) and an items list (draft 7), with optional members and a rest', () => {
    const pair = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false };
    expect(schemaToType({ ...pair, minItems: 2 })).toBe('[string, number]');
    expect(schemaToType({ ...pair, minItems: 1 })).toBe('[string, number?]');
    expect(schemaToType({ ...pair, items: { type: 'boolean' }, minItems: 2 })).toBe(
      '[string, number, ...boolean[]]',
    );
    expect(
      schemaToType({ type: 'array', items: [{ type: 'string' }, { enum: ['a', 'b'] }], minItems: 2 }),
    ).toBe('[string, "a" | "b", ...unknown[]]');
    expect(
      schemaToType({ type: 'array', items: [{ type: 'string' }], additionalItems: false, minItems: 0 }),
    ).toBe('[string?]');
    expect(
      parses(
        `declare const x: ${schemaToType({ ...pair, items: { anyOf: [{ type: 'string' }, { type: 'null' }] } })};`,
      ),
    ).toBe(true);
  });

  test('a $ref cycle reads as unknown where it closes', () => {
    expect(
      schemaToType({
        $ref: '#/$defs/node',
        $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
      }),
    ).toBe('{\n  next?: unknown;\n}');
  });

  test('remote references are never followed', () => {
    expect(schemaToType({ $ref: 'https://example.com/schema.json' })).toBe('unknown');
  });

  test('nesting past DEPTH_LIMIT reads as unknown', () => {
    let schema: object = { type: 'string' };
    for (let i = 0; i < 100_000; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'] };
    const type = schemaToType(schema);
    expect(type.match(/a:/g)?.length).toBe(DEPTH_LIMIT + 1);
    expect(type).toContain('a: unknown;');
  });

  test('references that double at every level spend the node budget and fall back', () => {
    const $defs: Record<string, object> = {};
    for (let i = 0; i < 60; i++) {
      $defs[`l${i}`] = { anyOf: Array.from({ length: 10 }, () => ({ $ref: `#/$defs/l${i + 1}` })) };
    }
    // Ten branches each: without the budget, 10^8 nodes inside DEPTH_LIMIT.
    expect(schemaToType({ $ref: '#/$defs/l0', $defs }, 'FALLBACK')).toBe('FALLBACK');
    expect(NODE_BUDGET).toBeLessThan(10 ** DEPTH_LIMIT);
  });

  test('a huge flat schema falls back to the coarse type past TYPE_LIMIT', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`property_${i}`, { type: 'string' }]),
    );
    const type = toolDeclaration({ name: 'wide', inputSchema: { type: 'object', properties } });
    expect(type).toBe('  wide(args: Record<string, unknown>): Promise<unknown>;');
    expect(TYPE_LIMIT).toBeLessThan(300 * 'property_000?: string;\n'.length);
  });

  test('garbage schemas read as the fallback, never a throw', () => {
    for (const garbage of [
      null,
      7,
      'x',
      [],
      { type: 42 },
      { properties: 'x' },
      { enum: 'x' },
      { $ref: 5 },
      { allOf: [] },
    ]) {
      expect(parses(`declare const x: ${schemaToType(garbage)};`)).toBe(true);
    }
  });

  test('a type past TYPE_LIMIT is given up at the node that passes it: a long name taken by tuples of tuples of $ref', () => {
    // 2500 references to one property name of a megabyte: a walk that measured only at the end
    // built hundreds of megabytes, then V8 refused the string (Invalid string length).
    const key = `${'k'.repeat(1024 * 1024 - 1)}-`;
    const tuple = (items: unknown) => ({ type: 'array', prefixItems: Array(50).fill(items), minItems: 50 });
    const schema = {
      $defs: {
        named: { type: 'object', properties: { [key]: { type: 'string' } } },
        inner: tuple({ $ref: '#/$defs/named' }),
      },
      ...tuple({ $ref: '#/$defs/inner' }),
    };
    expect(schemaToType(schema)).toBe('unknown');
    expect(toolDeclaration({ name: 'wide', inputSchema: schema })).toBe(
      '  wide(args: Record<string, unknown>): Promise<unknown>;',
    );
    // Short names, the same fan-out: each member is short, the whole is past the limit.
    const short = {
      $defs: {
        named: { type: 'object', properties: { some_name: { type: 'string' } } },
        inner: tuple({ $ref: '#/$defs/named' }),
      },
      ...tuple({ $ref: '#/$defs/inner' }),
    };
    expect(schemaToType(short)).toBe('unknown');
    expect(schemaToType(tuple(short.$defs.named))).toContain('some_name?: string;');
  });

  test('types that each stay within TYPE_LIMIT but add up to millions of characters end the walk too', () => {
    // Unions keep one of each type, so 9 × 50 expansions of one 3900-character type read as one;
    // the walk still built all 450 of them (1.75 million characters) within NODE_BUDGET.
    const big = { type: 'object', properties: { [`${'n'.repeat(3900)}-`]: { type: 'string' } } };
    const schema = {
      $defs: { big, inner: { anyOf: Array(50).fill({ $ref: '#/$defs/big' }) } },
      anyOf: Array(9).fill({ $ref: '#/$defs/inner' }),
    };
    expect(schemaToType(schema)).toBe('unknown');
    expect(schemaToType({ $defs: { big }, anyOf: Array(9).fill({ $ref: '#/$defs/big' }) })).toContain('nnnn');
  });
});
