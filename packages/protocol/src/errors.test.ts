import { describe, expect, test } from 'vitest';
import { envelopeForVersion, faultEnvelope, shapeEnvelope } from './envelope-shape.ts';
import * as errors from './errors.ts';
import { errorText } from './errors.ts';
import { ResultEnvelopeSchema } from './schemas/envelope.ts';

describe("texts the sandbox's specification pins word for word", () => {
  test.each([
    [errors.EXECUTION_COMPLETED_MESSAGE, 'Execution has already completed.'],
    [errors.DISPATCH_OUTSIDE_ENVELOPE_MESSAGE, 'The dispatch answered outside the result envelope.'],
    [
      errors.MISSING_SNAPSHOT_MESSAGE,
      'The isolate was created without the runtime snapshot readRuntimeSnapshot answers.',
    ],
    [errors.NOT_A_CRYPTO_KEY_MESSAGE, 'The provided value is not of type CryptoKey.'],
    [errors.EXECUTION_ENDED_MESSAGE, 'The execution has ended.'],
    [
      errors.timerCallbackMessage('setTimeout'),
      "Failed to execute 'setTimeout' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'function'.",
    ],
    [
      new errors.ExecutionTimeoutError(60000).message,
      'Execution timed out at its 60000 ms bound. Do less work per run and return the part that is already finished.',
    ],
    [
      new errors.ExecutionTimeoutError(2000).message,
      'Execution timed out at its 2000 ms bound. Do less work per run and return the part that is already finished.',
    ],
  ])('%s', (actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('the project texts name their cause', () => {
  test.each([
    [
      new errors.MemoryLimitError(128),
      'MEMORY_LIMIT',
      'Execution ran out of memory at its 128 MB limit. Hold less data at once and return the part that is already finished.',
    ],
    [
      new errors.PayloadTooLargeError("run's answer", 40, 32),
      'PAYLOAD_TOO_LARGE',
      "The run's answer is 40 bytes, past the 32-byte payload limit.",
    ],
    [
      new errors.OutboundDisabledError(),
      'OUTBOUND_DISABLED',
      'Outbound network access is disabled for this execution, so fetch cannot reach the network.',
    ],
    [
      new errors.ToolNotFoundError('files', 'write'),
      'TOOL_NOT_FOUND',
      'Tool files.write does not exist: no provider serves it.',
    ],
    [
      new errors.ModuleNotFoundError('./x.js', 'executor.js'),
      'MODULE_NOT_FOUND',
      "Cannot find module './x.js' imported from executor.js: the module map has no such key.",
    ],
    [
      new errors.ModuleKeyCollisionError('a.js', './a.js', 'a.js'),
      'BAD_REQUEST',
      "Module keys 'a.js' and './a.js' both name the module 'a.js'; keep one of them.",
    ],
    [
      new errors.UnsupportedModuleKindError('m'),
      'BAD_REQUEST',
      "Module 'm' has none of the kinds js, cjs, json, text or data.",
    ],
    [
      new errors.HandlesClosedError('abc'),
      'HANDLES_CLOSED',
      'Execution abc holds no handles: they were closed, expired, or never granted.',
    ],
    [
      new errors.HandleNotFoundError('scheduled', ['fetch']),
      'HANDLE_NOT_FOUND',
      "Handle 'scheduled' was not granted; the granted handles are fetch.",
    ],
    [new errors.CancelledError(), 'CANCELLED', 'Execution was cancelled by its caller.'],
    [
      new errors.OverloadedError(),
      'OVERLOADED',
      'The executor is at capacity: every worker is busy and the queue is full. Retry later.',
    ],
    [
      new errors.WorkerLostError('the worker was killed by SIGKILL'),
      'WORKER_LOST',
      'The worker running this execution was lost: the worker was killed by SIGKILL.',
    ],
  ])('%s', (error, code, message) => {
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.name).toBe(error.constructor.name);
    expect(error).toBeInstanceOf(Error);
  });

  test('every fault code is recognised and nothing else is', () => {
    for (const code of errors.FAULT_CODES) expect(errors.isFaultCode(code)).toBe(true);
    expect(errors.isFaultCode('TOOL_NOT_FOUND')).toBe(false);
    expect(errors.isFaultCode(undefined)).toBe(false);
  });
});

test('errorText turns whatever was thrown into text', () => {
  const noText = new Error('replaced');
  (noText as { message: unknown }).message = 42;
  const unprintable = {
    toString() {
      throw new Error('no');
    },
  };
  expect([
    errorText(new TypeError('bad')),
    errorText(noText),
    errorText(Symbol('s')),
    errorText(null),
  ]).toStrictEqual(['bad', '42', 'Symbol(s)', 'null']);
  expect(errorText(unprintable)).toBe('The call failed with a value that cannot be turned into text.');
});

test('envelopes the executor composes, and callers read, keep the printed key order', () => {
  expect(Object.keys(faultEnvelope('TIMEOUT', 'late'))).toStrictEqual(['result', 'error', 'code', 'logs']);
  const shaped = shapeEnvelope({ logs: [], executionId: 'x', code: 'TIMEOUT', error: 'late', result: 1 });
  expect(Object.keys(shaped)).toStrictEqual(['result', 'error', 'code', 'logs', 'executionId']);
  expect(Object.keys(shapeEnvelope({ logs: [] }))).toStrictEqual(['result', 'logs']);
  // The error's kind, name and stack come after everything the specification prints (docs/sandbox.md).
  const failed = shapeEnvelope({
    errorStack: 's',
    errorName: 'E',
    errorKind: 'thrown',
    logs: [],
    error: 'x',
  });
  expect(Object.keys(failed)).toStrictEqual([
    'result',
    'error',
    'logs',
    'errorKind',
    'errorName',
    'errorStack',
  ]);
});

test("version 3's fields come last, in one order, and a peer of an older version never receives them", () => {
  const failed = shapeEnvelope({
    notes: ['result.m: a Map lost its entries'],
    hint: 'h',
    errorJson: '{}',
    errorAt: 'executor.js:1:2',
    errorTool: 'get',
    errorProvider: 'api',
    errorKind: 'tool-failed',
    logs: [],
    error: 'x',
  });
  expect(Object.keys(failed)).toStrictEqual([
    'result',
    'error',
    'logs',
    'errorKind',
    'errorProvider',
    'errorTool',
    'errorAt',
    'errorJson',
    'hint',
    'notes',
  ]);
  expect(envelopeForVersion(failed, 3)).toBe(failed);
  expect(envelopeForVersion(failed, 2)).toStrictEqual({
    result: undefined,
    error: 'x',
    logs: [],
    errorKind: 'tool-failed',
  });
  const plain = shapeEnvelope({ logs: [], result: 1 });
  expect(envelopeForVersion(plain, 1)).toBe(plain);
});

describe("the user error's details: one list for the sandbox, the hot check and the schema", () => {
  // The envelope's fields that are no detail of a user error: the outcome, the run's handle, the
  // notes (set whatever ended the run) and a durable run's pause.
  const OTHER_FIELDS = ['result', 'error', 'code', 'logs', 'executionId', 'notes', 'paused'];

  test("every other field of the envelope's schema is a detail, in the schema's order", () => {
    const fields = Object.keys(ResultEnvelopeSchema.shape).filter((field) => !OTHER_FIELDS.includes(field));
    expect(fields).toStrictEqual([...errors.USER_ERROR_DETAILS]);
  });

  test.each(Object.entries(errors.USER_ERROR_TEXT_LIMITS))(
    "%s: the schema's bound is the list's",
    (field, limit) => {
      const envelope = (length: number) => ({ logs: [], error: 'x', [field]: 'y'.repeat(length) });
      expect(ResultEnvelopeSchema.safeParse(envelope(limit)).success).toBe(true);
      expect(ResultEnvelopeSchema.safeParse(envelope(limit + 1)).success).toBe(false);
    },
  );
});
