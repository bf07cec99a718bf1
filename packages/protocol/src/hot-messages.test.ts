/**
 * The hot messages' hand-written checks against their zod schemas, over messages generated from
 * the schemas themselves (through their JSON Schema, testing/hot-check-properties.ts), so a field
 * added to a schema is generated there and fails these tests until hot-messages.ts learns it.
 */
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { parseForDispatch, stringifyForDispatch } from './codec.ts';
import {
  CANCEL_KEYS,
  CLOSE_HANDLES_KEYS,
  CONSOLE_KEYS,
  DISPATCH_KEYS,
  DISPATCH_REPLY_KEYS,
  ENVELOPE_KEYS,
  EXECUTE_KEYS,
  HELLO_KEYS,
  HOT_MESSAGE_CHECKS,
  LOG_LINE_KEYS,
  MODULE_KEYS,
  PROVIDER_KEYS,
  REQUEST_KEYS,
  RESULT_KEYS,
} from './hot-messages.ts';
import { MODULE_LIMIT } from './limits.ts';
import { MESSAGE_SCHEMAS, type MessageType } from './messages.ts';
import { LogLineSchema, ResultEnvelopeSchema } from './schemas/envelope.ts';
import { ExecuteRequestSchema, ModuleEntrySchema, ProviderDescriptorSchema } from './schemas/request.ts';
import { expectSameDecoded, jsonSchemaOf, testHotChecks } from './testing/hot-check-properties.ts';
import { decodeMessage, validateMessage, validateParsed } from './validate.ts';

const HOT_TYPES = Object.keys(HOT_MESSAGE_CHECKS) as MessageType[];
const PROTOCOL_VALIDATION = { validate: validateMessage, decode: decodeMessage, validateParsed };

describe('the hot messages decode as their schemas say', () => {
  test('each check knows exactly the fields of its schema', () => {
    // A field added to a schema is refused by the check's key test (the schema's path then serves
    // it, correctly but slowly): this names the check that needs to learn it.
    expect([...DISPATCH_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.dispatch.shape));
    expect([...CANCEL_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.cancel.shape));
    expect([...CLOSE_HANDLES_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.closeHandles.shape));
    expect([...CONSOLE_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.console.shape));
    expect([...DISPATCH_REPLY_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.dispatchReply.shape));
    expect([...RESULT_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.result.shape));
    expect([...ENVELOPE_KEYS]).toEqual(Object.keys(ResultEnvelopeSchema.shape));
    expect([...LOG_LINE_KEYS]).toEqual(Object.keys(LogLineSchema.shape));
    expect([...EXECUTE_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.execute.shape));
    expect([...HELLO_KEYS]).toEqual(Object.keys(MESSAGE_SCHEMAS.hello.shape));
    expect([...REQUEST_KEYS]).toEqual(Object.keys(ExecuteRequestSchema.shape));
    expect([...PROVIDER_KEYS]).toEqual(Object.keys(ProviderDescriptorSchema.shape));
    const moduleObject = ModuleEntrySchema.options[1] as z.ZodObject;
    expect([...MODULE_KEYS]).toEqual(Object.keys(moduleObject.shape));
  });

  testHotChecks(
    { schemas: MESSAGE_SCHEMAS, checks: HOT_MESSAGE_CHECKS, validation: PROTOCOL_VALIDATION },
    HOT_TYPES,
  );

  test('logs at their bound take the fast path; one line more is refused as the schema says', () => {
    const bound = (jsonSchemaOf(MESSAGE_SCHEMAS.result).properties?.envelope?.properties?.logs?.maxItems ??
      0) as number;
    expect(bound).toBeGreaterThan(0);
    const withLines = (count: number) =>
      stringifyForDispatch({
        type: 'result',
        id: 'e1',
        envelope: { logs: Array.from({ length: count }, () => ({ level: 'log', text: 'x' })) },
      });
    const atBound = parseForDispatch(withLines(bound)) as Record<string, unknown>;
    expect(HOT_MESSAGE_CHECKS.result?.(atBound)).toBeDefined();
    expectSameDecoded(decodeMessage(withLines(bound)), validateMessage(atBound));
    const past = parseForDispatch(withLines(bound + 1)) as Record<string, unknown>;
    expect(HOT_MESSAGE_CHECKS.result?.(past)).toBeUndefined();
    const refused = decodeMessage(withLines(bound + 1));
    expect(refused.ok).toBe(false);
    expectSameDecoded(refused, validateMessage(past));
  });

  test('a module map at MODULE_LIMIT takes the fast path; one module more is refused as the schema says', () => {
    const withModules = (count: number) =>
      stringifyForDispatch({
        type: 'execute',
        id: 'e1',
        request: {
          code: 'async () => 1',
          modules: Object.fromEntries(Array.from({ length: count }, (_, index) => [`m${index}`, ''])),
        },
      });
    const atBound = parseForDispatch(withModules(MODULE_LIMIT)) as Record<string, unknown>;
    expect(HOT_MESSAGE_CHECKS.execute?.(atBound)).toBeDefined();
    expectSameDecoded(decodeMessage(withModules(MODULE_LIMIT)), validateMessage(atBound));
    const past = parseForDispatch(withModules(MODULE_LIMIT + 1)) as Record<string, unknown>;
    expect(HOT_MESSAGE_CHECKS.execute?.(past)).toBeUndefined();
    const refused = decodeMessage(withModules(MODULE_LIMIT + 1));
    expect(refused.ok).toBe(false);
    expectSameDecoded(refused, validateMessage(past));
  });

  test('a key inherited from a changed Object.prototype takes the schema path', () => {
    const message = { type: 'dispatch', id: 'e1', call: 0, provider: 'p', tool: 't', args: '[]' };
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.injected = 1;
    try {
      expect(HOT_MESSAGE_CHECKS.dispatch?.(message)).toBeUndefined();
      expectSameDecoded(validateParsed(message), validateMessage(message));
    } finally {
      delete prototype.injected;
    }
  });

  test('an object of another prototype takes the schema path', () => {
    const envelope = Object.assign(Object.create({ inherited: true }) as object, { logs: [] });
    const message = { type: 'result', id: 'e1', envelope };
    expect(HOT_MESSAGE_CHECKS.result?.(message)).toBeUndefined();
    expectSameDecoded(validateParsed(message), validateMessage(message));
  });
});
