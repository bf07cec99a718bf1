/**
 * Validation at every boundary: a value that fails its schema yields one sentence naming each
 * field and the rule it broke, never a thrown zod dump.
 */
import { z } from 'zod';
import { echo } from './echo.ts';
import { BadRequestError, unknownFieldsText } from './errors.ts';
import { PAYLOAD_LIMIT } from './limits.ts';
import type { MessageScan } from './message-scan.ts';
import { type Decoded, describeValue, formatPath, type MessageWire, PROTOCOL_WIRE } from './message-wire.ts';
import {
  MESSAGE_SCHEMAS,
  type Message,
  type MessageIn,
  type MessageSchemas,
  type TypedMessage,
} from './messages.ts';
import { ExecutionIdSchema, MessageIdSchema } from './schemas/common.ts';

export { type Decoded, describeValue, encodeMessage, formatPath } from './message-wire.ts';

/** One readable sentence per issue, joined: `timeout must be at least 1 ms; code is required`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  // The first few name the problem; the rest would only make the fault as large as the input.
  const shown = issues.slice(0, ISSUES_SHOWN);
  const more = issues.length - shown.length;
  const text = shown
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const where = issue.path.length ? ` in ${formatPath(issue.path)}` : '';
        return `${unknownFieldsText(issue.keys)}${where}`;
      }
      const field = formatPath(issue.path) || 'the value';
      const missing = issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined;
      return `${field} ${missing ? 'is required' : issue.message}`;
    })
    .join('; ');
  return more > 0 ? `${text}; and ${more} more` : text;
}

/** Issues a fault names one by one. */
const ISSUES_SHOWN = 10;

/** Parses `value` against `schema`, or throws a BadRequestError naming `what`, each field and its rule. */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new BadRequestError(`Invalid ${what}: ${formatIssues(parsed.error.issues)}.`);
}

const ExecutionIdArgumentSchema = z.strictObject({ executionId: ExecutionIdSchema });

/**
 * The executionId a caller handed to `call` (invoke, closeHandles), or a BadRequestError naming the
 * call, the field and its rule (`Invalid invoke call: executionId must be at most 128 characters.`),
 * as the same field of a message is refused: never the id itself, which may be of any size.
 */
export function validateExecutionId(executionId: unknown, call: string): string {
  return validate(ExecutionIdArgumentSchema, { executionId }, `${call} call`).executionId;
}

/** The schemas' half of one message table: its validation, and its decode through its hot checks. */
export interface MessageValidation<Of extends TypedMessage> {
  /** Checks a value already parsed from the wire against the schema its `type` names. */
  readonly validate: (value: unknown) => Decoded<Of>;
  /**
   * Decodes one message from its wire text: the size bound, the values it holds (VALUE_LIMIT,
   * counted before anything is parsed), then the codec, then the hot check or the schema. `scan` is
   * the text's scanMessage when the caller already made it. Never throws: every failure is a fault
   * the receiver can send back.
   */
  readonly decode: (text: string, limit?: number, scan?: MessageScan) => Decoded<Of>;
  /**
   * `validate` for a value the codec's parse built: the table's hot checks try first, each
   * accepting what its schema would and nothing else; whatever they do not accept is the schema's
   * to accept or refuse.
   */
  readonly validateParsed: (value: unknown) => Decoded<Of>;
}

/**
 * The validation of the table `schemas`, whose zod-free half is `wire`. A type the table does not
 * hold is refused by its name (and the id the refusal answers): no schema reads the rest of it.
 */
export function messageValidation<Schemas extends MessageSchemas>(
  schemas: Schemas,
  wire: MessageWire<MessageIn<Schemas>>,
): MessageValidation<MessageIn<Schemas>> {
  type Of = MessageIn<Schemas>;
  const types = Object.keys(schemas).join(', ');
  const validate = (value: unknown): Decoded<Of> => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return badRequest(`A message must be an object with a "type"; got ${describeValue(value)}.`);
    }
    const record = value as Record<string, unknown>;
    // The fault answers the message's id only when it is one (MessageIdSchema): the answer never
    // repeats more of a refused message than the refusal's words do (echo.ts).
    const id = MessageIdSchema.safeParse(record.id).success ? (record.id as string) : undefined;
    const type = record.type;
    if (typeof type !== 'string' || !Object.hasOwn(schemas, type)) {
      const got = typeof type === 'string' ? `"${echo(type)}"` : 'none';
      return badRequest(`Unknown message type ${got}; expected one of ${types}.`, id);
    }
    const parsed = (schemas[type] as z.ZodType).safeParse(value, { reportInput: true });
    if (parsed.success) return { ok: true, message: parsed.data as Of };
    return badRequest(`Invalid ${type} message: ${formatIssues(parsed.error.issues)}.`, id);
  };
  return {
    validate,
    decode: (text, limit = PAYLOAD_LIMIT, scan) => {
      const decoded = wire.decodeHot(text, limit, scan);
      return decoded.ok === undefined ? validate(decoded.value) : decoded;
    },
    validateParsed: (value) => {
      const checked = wire.check(value);
      return checked === undefined ? validate(value) : { ok: true, message: checked };
    },
  };
}

/** The protocol's table (messages.ts), whose functions follow. */
const PROTOCOL_VALIDATION: MessageValidation<Message> = messageValidation(MESSAGE_SCHEMAS, PROTOCOL_WIRE);

/** Checks a value already parsed from the wire against the schema its `type` names. */
export const validateMessage: (value: unknown) => Decoded = PROTOCOL_VALIDATION.validate;

/**
 * Decodes one message from its wire text: the size bound, the values it holds (VALUE_LIMIT,
 * counted before anything is parsed), then the codec, then the schema. `scan` is the text's
 * scanMessage when the caller already made it. Never throws: every failure is a fault the
 * receiver can send back.
 */
export const decodeMessage: (text: string, limit?: number, scan?: MessageScan) => Decoded =
  PROTOCOL_VALIDATION.decode;

/**
 * validateMessage for a value the codec's parse built: the hot message types (hot-messages.ts)
 * try their hand-written check first, which accepts what the schema would and nothing else;
 * whatever it does not accept is the schema's to accept or refuse.
 */
export const validateParsed: (value: unknown) => Decoded = PROTOCOL_VALIDATION.validateParsed;

function badRequest<Of extends TypedMessage>(message: string, id?: string): Decoded<Of> {
  return {
    ok: false,
    fault: id === undefined ? { code: 'BAD_REQUEST', message } : { code: 'BAD_REQUEST', message, id },
  };
}
