/**
 * A tool's schema as JSON Schema, whatever form its author wrote it in: declarations and checks are
 * both made from JSON Schema (declarations.ts, schema-check.ts), so every form is read into one.
 * Taken as they are: a JSON Schema object, and an AI SDK schema (`jsonSchema(...)`, `zodSchema(...)`),
 * which carries one. Asked for one: a Standard JSON Schema (`~standard.jsonSchema`, which zod 4,
 * ArkType and others implement) and a schema with a `toJSONSchema()` method (zod 4 before it
 * implemented the former). Nothing is imported for any of them, zod included: each form is
 * recognised by its shape. A Standard Schema without a JSON Schema export (`~standard.validate`
 * alone) is refused: nothing of its structure can be declared, and its validation is a function of
 * the caller's that would run a program's input on this thread with no deadline (docs/codemode.md,
 * "Describing tools to the model").
 */
import {
  aiSchemaPendingMessage,
  notJsonSchemaMessage,
  notSerializableMessage,
  standardSchemaWithoutJsonMessage,
  unconvertibleSchemaMessage,
} from './texts.ts';

export type SchemaDirection = 'input' | 'output';
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/** The mark an AI SDK schema carries (`jsonSchema()`, `zodSchema()` of the package `ai`). */
const AI_SDK_SCHEMA = Symbol.for('vercel.ai.schema');
/** The draft asked of a library that writes JSON Schema: the one MCP names, and zod's own default. */
const TARGET = 'draft-2020-12';

type Method = (options: object) => unknown;

/**
 * `schema` as a JSON Schema object (a copy, so a later change to the caller's object changes nothing
 * here), or undefined when there is none. `where` names it in a refusal (`weather.forecast's
 * inputSchema`). Throws TypeError for a schema that cannot be read as JSON Schema.
 */
export function jsonSchemaOf(
  schema: unknown,
  direction: SchemaDirection,
  where: string,
): JsonSchemaObject | undefined {
  if (schema === undefined) return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TypeError(notJsonSchemaMessage(where, describe(schema)));
  }
  const record = schema as Record<PropertyKey, unknown>;
  const standard = record['~standard'];
  if (typeof standard === 'object' && standard !== null) {
    const exported = (standard as { jsonSchema?: Partial<Record<SchemaDirection, unknown>> }).jsonSchema?.[
      direction
    ];
    if (typeof exported === 'function') {
      return converted(where, () => (exported as Method).call(standard, { target: TARGET }));
    }
    if (typeof record.toJSONSchema === 'function') {
      return converted(where, () =>
        (record.toJSONSchema as Method).call(schema, { target: TARGET, io: direction }),
      );
    }
    throw new TypeError(standardSchemaWithoutJsonMessage(where));
  }
  if (record[AI_SDK_SCHEMA] === true) {
    const carried = record.jsonSchema;
    if (typeof (carried as { then?: unknown } | null)?.then === 'function') {
      throw new TypeError(aiSchemaPendingMessage(where));
    }
    return plainCopy(carried, where);
  }
  return plainCopy(schema, where);
}

/** What a library's conversion returns, as a plain copy; its throw (a type JSON Schema cannot hold) named. */
function converted(where: string, convert: () => unknown): JsonSchemaObject {
  let made: unknown;
  try {
    made = convert();
  } catch (error) {
    throw new TypeError(
      unconvertibleSchemaMessage(where, error instanceof Error ? error.message : String(error)),
    );
  }
  return plainCopy(made, where);
}

/** A JSON copy of `value`, which must be an object JSON can hold (no cycle, no BigInt). */
function plainCopy(value: unknown, where: string): JsonSchemaObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(notJsonSchemaMessage(where, describe(value)));
  }
  try {
    return JSON.parse(JSON.stringify(value)) as JsonSchemaObject;
  } catch (error) {
    throw new TypeError(
      notSerializableMessage(where, error instanceof Error ? error.message : String(error)),
    );
  }
}

/** What a schema that is no object is, for its refusal. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
