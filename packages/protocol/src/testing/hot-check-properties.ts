/**
 * The proof that a message table's hand-written hot checks equal its zod schemas, over messages
 * generated from the schemas themselves (through their JSON Schema), so a field added to a schema
 * is generated here and fails these tests until the check learns it. The protocol's table runs it
 * (hot-messages.test.ts), and so does the executor pool's, whose own checks it proves the same way
 * (packages/executor/test/pool/messages/). Test code only: the build leaves this folder out.
 */
// biome-ignore lint/correctness/noNodejsModules: test code, run by vitest under Node; the build leaves it out.
import { inspect, isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { parseForDispatch, stringifyForDispatch } from '../codec.ts';
import type { Decoded } from '../message-wire.ts';
import type { TypedMessage } from '../messages.ts';
import { BytesSchema } from '../schemas/common.ts';
import type { MessageValidation } from '../validate.ts';

/** A message table as the proof reads it: its schemas, its hot checks, and its validation built from both. */
export interface HotTable {
  readonly schemas: Readonly<Record<string, z.ZodType>>;
  readonly checks: Readonly<Record<string, ((value: Record<string, unknown>) => unknown) | undefined>>;
  readonly validation: MessageValidation<TypedMessage>;
}

/**
 * A schema as JSON Schema, which the generators below read. Bytes (BytesSchema, a custom type JSON
 * Schema cannot say) are written as `{ format: 'bytes' }`, which the generators make Uint8Arrays of.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    unrepresentable: 'any',
    override: (context) => {
      if (context.zodSchema === BytesSchema) context.jsonSchema.format = 'bytes';
    },
  }) as JsonSchema;
}

export interface JsonSchema {
  type?: string;
  format?: string;
  const?: unknown;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | false;
}

/** Any value the codec carries: JSON, binary, and objects with keys such as __proto__. */
const codecValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.uint8Array({ maxLength: 8 }),
  fc.constantFrom({ ['__proto__']: 1 }, { $binary: 'not binary' }, []),
);

const objectWithOwnKey = (key: string, value: unknown) => Object.fromEntries([[key, value]]);

/** Values that satisfy `schema`, keys of each object in a shuffled order; `full`, every optional key present. */
function validOf(schema: JsonSchema, full = false): fc.Arbitrary<unknown> {
  const validInner = (inner: JsonSchema) => validOf(inner, full);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(validInner));
  if (schema.prefixItems) return fc.tuple(...schema.prefixItems.map(validInner));
  if (schema.format === 'bytes') return fc.uint8Array({ maxLength: 8 });
  switch (schema.type) {
    case 'string': {
      // A pattern's strings (a SHA-256 in the pool's health message): the schema's length bounds, if
      // any, are the pattern's own.
      if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern));
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 40;
      const short = fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 12) });
      // At the bound and just under it too (ids: 126 to 128 characters), where that is small
      // enough to generate often; one past it is among the near values below.
      const atBound = max <= 1024 ? [fc.string({ minLength: Math.max(min, max - 2), maxLength: max })] : [];
      return fc.oneof(short, ...atBound).filter((text) => text.length >= min && text.length <= max);
    }
    case 'boolean':
      return fc.boolean();
    case 'number':
      // Any finite number (a durable journal's timer delay): zod's number refuses NaN and the infinities.
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'integer': {
      const min = schema.minimum ?? Number.MIN_SAFE_INTEGER;
      const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
      return fc.oneof(fc.integer({ min, max: Math.min(max, min + 1000) }), fc.constantFrom(min, max));
    }
    case 'array': {
      const item =
        schema.items === false || schema.items === undefined ? codecValue : validInner(schema.items);
      return fc.array(item, { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'object': {
      if (schema.additionalProperties) {
        // A record (the module map). A key __proto__ is valid but dropped by the schema, so the
        // check leaves it to the schema's path: the hostile test adds it.
        const key = fc.string({ maxLength: 8 }).filter((name) => name !== '__proto__');
        return fc.dictionary(key, validInner(schema.additionalProperties), { maxKeys: 4 });
      }
      const properties = schema.properties ?? {};
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, validInner(value)])),
        { requiredKeys: full ? Object.keys(properties) : (schema.required ?? []) },
      ) as fc.Arbitrary<Record<string, unknown>>;
      return record.chain((value) => {
        const keys = Object.keys(value);
        return fc
          .shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length })
          .map((order) => Object.fromEntries(order.map((key) => [key, value[key]])));
      });
    }
    default:
      // `{}`: the schema's unknown (an envelope's result).
      return codecValue;
  }
}

const deepList = (depth: number) => {
  let value: unknown = [];
  for (let level = 0; level < depth; level++) value = [value];
  return value;
};

/** What a hostile child puts where a field should be. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  codecValue,
  fc.constantFrom(
    2 ** 53,
    2 ** 60,
    1e308,
    -1,
    0.5,
    -0,
    '',
    'x'.repeat(129),
    null,
    true,
    objectWithOwnKey('then', 1),
    ['returned'],
    ['returned', 'a', 'b'],
    ['returned', 1],
    ['other', 'a'],
    [{ level: 'log', text: 'a', more: 1 }],
    [{ level: 'debug', text: 'a' }],
    'TIMEOUTS',
  ),
  fc.constant(null).map(() => deepList(1000)),
);

const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'errorKind', 'then', '$object'),
  fc.string({ maxLength: 6 }),
);

type Container = Record<string, unknown> | unknown[];

/** Every object and list in `value`, the value included, outside an envelope's opaque result. */
function containers(value: unknown, found: Container[] = []): Container[] {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return found;
  found.push(value as Container);
  for (const [key, child] of Object.entries(value)) if (key !== 'result') containers(child, found);
  return found;
}

/** Values `schema` refuses by a hair: one past each bound it states, the wrong constant, the wrong kind. */
function nearValues(schema: JsonSchema): unknown[] {
  const near: unknown[] = [undefined, null, 1, 'text', [], {}];
  if (schema.maxLength !== undefined) near.push('x'.repeat(schema.maxLength + 1));
  if (schema.minLength !== undefined && schema.minLength > 0) near.push('x'.repeat(schema.minLength - 1));
  if (schema.minimum !== undefined) near.push(schema.minimum - 1, schema.minimum + 0.5);
  if (schema.maximum !== undefined) near.push(schema.maximum + 1, schema.maximum * 2);
  if (schema.const !== undefined || schema.enum) near.push('OTHER', `${schema.const ?? schema.enum?.[0]}x`);
  // A list one past its bound is tested on its own below: tens of thousands of items are too slow here.
  return near;
}

const violating = (schema: JsonSchema) => fc.constantFrom(...nearValues(schema));

/** Each field in `value` with the schema that describes it, outside an envelope's opaque result. */
function fieldsOf(
  value: unknown,
  schema: JsonSchema,
  found: { holder: Container; key: string | number; schema: JsonSchema }[] = [],
): typeof found {
  if (typeof value !== 'object' || value === null) return found;
  const holder = value as Container;
  const variants = schema.anyOf ?? [schema];
  for (const variant of variants) {
    if (variant.properties && !Array.isArray(holder)) {
      for (const [key, property] of Object.entries(variant.properties)) {
        if (!Object.hasOwn(holder, key)) continue;
        found.push({ holder, key, schema: property });
        fieldsOf(holder[key], property, found);
      }
    }
    if (Array.isArray(holder)) {
      holder.forEach((item, index) => {
        const itemSchema = variant.prefixItems?.[index] ?? (variant.items || undefined);
        if (!itemSchema) return;
        found.push({ holder, key: index, schema: itemSchema });
        fieldsOf(item, itemSchema, found);
      });
    }
    if (variants.length > 1) break;
  }
  return found;
}

/** Equal as values, and in the order of every object's keys and the kind of every binary value. */
export function expectSameDecoded(actual: Decoded<TypedMessage>, expected: Decoded<TypedMessage>): void {
  // Node's deep equality, not toStrictEqual, which compares the `constructor` each object reads and
  // so calls two equal objects owning a key named constructor different.
  if (!isDeepStrictEqual(actual, expected)) {
    expect.fail(
      `decoded\n${inspect(actual, { depth: 12 })}\nbut the schema says\n${inspect(expected, { depth: 12 })}`,
    );
  }
  expect(stringifyForDispatch(actual)).toBe(stringifyForDispatch(expected));
}

/** One message of a hot type of `schemas` changed the way a hostile child would change it. */
const hostileMessage = (schemas: HotTable['schemas'], types: readonly string[]) =>
  fc.constantFrom(...types).chain((type) =>
    validOf(jsonSchemaOf(schemas[type] as z.ZodType)).chain((message) =>
      fc
        .record({
          where: fc.nat(),
          which: fc.nat(),
          how: fc.constantFrom('add', 'delete', 'replace', 'append', 'violate', 'violate'),
          key: hostileKey,
          value: hostileValue,
          seed: fc.nat(),
        })
        .chain(({ where, which, how, key, value, seed }) => {
          const copy = parseForDispatch(stringifyForDispatch(message));
          if (how === 'violate') {
            const fields = fieldsOf(copy, jsonSchemaOf(schemas[type] as z.ZodType));
            const field = fields[seed % fields.length];
            if (field === undefined) return fc.constant(copy);
            return violating(field.schema).map((bad) => {
              const changed = parseForDispatch(stringifyForDispatch(copy));
              const target = fieldsOf(changed, jsonSchemaOf(schemas[type] as z.ZodType))[
                seed % fields.length
              ];
              if (target) (target.holder as Record<string | number, unknown>)[target.key] = bad;
              return changed;
            });
          }
          const found = containers(copy);
          const target = found[where % found.length] as Container;
          const keys = Object.keys(target);
          const chosen = keys.length > 0 ? (keys[which % keys.length] as string) : key;
          if (Array.isArray(target)) {
            if (how === 'append' || how === 'add') target.push(value);
            else if (how === 'delete') target.pop();
            else target[which % Math.max(1, target.length)] = value;
          } else if (how === 'delete') delete target[chosen];
          else if (how === 'replace') target[chosen] = value;
          else Object.assign(target, objectWithOwnKey(key, value));
          return fc.constant(copy);
        }),
    ),
  );

/**
 * Registers the proof's tests for the hot `types` of `table`: every valid message takes the fast
 * path and gets what the schema returns; a changed one decodes, or is refused with the same
 * sentence, exactly as the schema says; and every field broken by a hair is refused as it says.
 */
export function testHotChecks(table: HotTable, types: readonly string[]): void {
  for (const type of types) {
    test(`every valid ${type} message takes the fast path and gets what the schema returns`, () => {
      fc.assert(
        fc.property(validOf(jsonSchemaOf(table.schemas[type] as z.ZodType)), (message) => {
          const text = stringifyForDispatch(message);
          const parsed = parseForDispatch(text) as Record<string, unknown>;
          const reference = table.validation.validate(parsed);
          expect(reference.ok).toBe(true);
          const checked = table.checks[type]?.(parsed);
          expect(checked).toBeDefined();
          expectSameDecoded({ ok: true, message: checked as TypedMessage }, reference);
          expectSameDecoded(table.validation.decode(text), reference);
        }),
        { numRuns: 300 },
      );
    });
  }

  test('a changed message decodes, or is refused with the same sentence, exactly as the schema says', () => {
    let refused = 0;
    fc.assert(
      fc.property(hostileMessage(table.schemas, types), (message) => {
        const text = stringifyForDispatch(message);
        const reference = table.validation.validate(parseForDispatch(text));
        if (!reference.ok) refused++;
        expectSameDecoded(table.validation.validateParsed(parseForDispatch(text)), reference);
        expectSameDecoded(table.validation.decode(text), reference);
      }),
      { numRuns: 1000 },
    );
    // The generator must reach refusals, or the test proves nothing about them.
    expect(refused).toBeGreaterThan(300);
  }, 60_000);

  for (const type of types) {
    test(`every field of a full ${type} message, broken by a hair, is refused exactly as the schema says`, () => {
      const schema = jsonSchemaOf(table.schemas[type] as z.ZodType);
      const samples = fc.sample(validOf(schema, true), { numRuns: 4, seed: 11 });
      const check = (sample: unknown, breakage: (message: unknown) => void) => {
        const message = parseForDispatch(stringifyForDispatch(sample));
        breakage(message);
        const text = stringifyForDispatch(message);
        expectSameDecoded(table.validation.decode(text), table.validation.validate(parseForDispatch(text)));
      };
      for (const sample of samples) {
        const fields = fieldsOf(parseForDispatch(stringifyForDispatch(sample)), schema);
        fields.forEach((field, index) => {
          const at = (message: unknown) => fieldsOf(message, schema)[index] as (typeof fields)[number];
          for (const bad of nearValues(field.schema)) {
            check(sample, (message) => {
              const target = at(message);
              (target.holder as Record<string | number, unknown>)[target.key] = bad;
            });
          }
          check(sample, (message) => {
            const target = at(message);
            if (!Array.isArray(target.holder)) delete target.holder[target.key as string];
          });
        });
        for (const key of ['__proto__', 'constructor', 'toString', 'errorKind', 'extra']) {
          for (const value of ['', {}]) {
            check(sample, (message) => {
              for (const container of containers(message)) {
                if (!Array.isArray(container)) Object.assign(container, objectWithOwnKey(key, value));
              }
            });
          }
        }
      }
    }, 60_000);
  }
}
