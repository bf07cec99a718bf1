/**
 * Validation at every boundary: a value that fails its schema yields one sentence naming each
 * field and the rule it broke, never a thrown zod dump.
 */
import { z } from 'zod';
import { echo } from './echo.ts';
import { BadRequestError, unknownFieldsText } from './errors.ts';
import { PAYLOAD_LIMIT } from './limits.ts';
import type { MessageScan } from './message-scan.ts';
import {
  checkHotMessage,
  type Decoded,
  decodeHotMessage,
  describeValue,
  formatPath,
} from './message-wire.ts';
import { MESSAGE_SCHEMAS, MESSAGE_TYPES, type Message, type MessageType } from './messages.ts';
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

/** Checks a value already parsed from the wire against the schema its `type` names. */
export function validateMessage(value: unknown): Decoded {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return badRequest(`A message must be an object with a "type"; got ${describeValue(value)}.`);
  }
  const record = value as Record<string, unknown>;
  // The fault answers the message's id only when it is one (MessageIdSchema): the answer never
  // repeats more of a refused message than the refusal's words do (echo.ts).
  const id = MessageIdSchema.safeParse(record.id).success ? (record.id as string) : undefined;
  const type = record.type;
  if (typeof type !== 'string' || !Object.hasOwn(MESSAGE_SCHEMAS, type)) {
    const got = typeof type === 'string' ? `"${echo(type)}"` : 'none';
    return badRequest(`Unknown message type ${got}; expected one of ${MESSAGE_TYPES.join(', ')}.`, id);
  }
  const parsed = MESSAGE_SCHEMAS[type as MessageType].safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, message: parsed.data as Message };
  return badRequest(`Invalid ${type} message: ${formatIssues(parsed.error.issues)}.`, id);
}

/**
 * Decodes one message from its wire text: the size bound, the values it holds (VALUE_LIMIT,
 * counted before anything is parsed), then the codec, then the schema. `scan` is the text's
 * scanMessage when the caller already made it. Never throws: every failure is a fault the
 * receiver can send back.
 */
export function decodeMessage(text: string, limit: number = PAYLOAD_LIMIT, scan?: MessageScan): Decoded {
  const decoded = decodeHotMessage(text, limit, scan);
  return decoded.ok === undefined ? validateMessage(decoded.value) : decoded;
}

/**
 * validateMessage for a value the codec's parse built: the hot message types (hot-messages.ts)
 * try their hand-written check first, which accepts what the schema would and nothing else;
 * whatever it does not accept is the schema's to accept or refuse.
 */
export function validateParsed(value: unknown): Decoded {
  const checked = checkHotMessage(value);
  return checked === undefined ? validateMessage(value) : { ok: true, message: checked };
}

function badRequest(message: string, id?: string): Decoded {
  return {
    ok: false,
    fault: id === undefined ? { code: 'BAD_REQUEST', message } : { code: 'BAD_REQUEST', message, id },
  };
}
