import { describe, expect, test } from 'vitest';
import { stringifyForDispatch } from './codec.ts';
import {
  ERROR_JSON_LIMIT,
  ERROR_NAME_LIMIT,
  ERROR_STACK_LIMIT,
  NOTE_LIMIT,
  NOTE_TEXT_LIMIT,
} from './errors.ts';
import { ID_LIMIT, LOG_LINE_LIMIT, PAYLOAD_LIMIT, VALUE_LIMIT } from './limits.ts';
import { MESSAGE_TYPES } from './messages.ts';
import { ExecuteRequestSchema } from './schemas/request.ts';
import { decodeMessage, encodeMessage, validate, validateExecutionId, validateMessage } from './validate.ts';

const httpRequest = {
  method: 'POST',
  url: 'https://example.com/a',
  headers: [['content-type', 'text/plain']],
  body: new Uint8Array([104, 105]),
};
const httpResponse = { status: 200, statusText: 'OK', headers: [], body: null };

/** One valid instance of every message type, so a new type without one fails here. */
const valid: Record<(typeof MESSAGE_TYPES)[number], unknown[]> = {
  hello: [
    { type: 'hello', protocol: 1 },
    { type: 'hello', protocol: 1, token: 'secret' },
    { type: 'hello', protocol: 1, instance: 'executor-a' },
  ],
  execute: [
    { type: 'execute', id: 'e1', request: { code: 'async () => 1' } },
    { type: 'execute', id: 'e3', request: { code: 'async () => 1' }, streamConsole: true },
    {
      type: 'execute',
      id: 'e2',
      request: {
        code: "import x from 'x'\nasync () => x",
        modules: {
          x: 'export default 1',
          'y.js': { js: 'export default 2' },
          'z.cjs': { cjs: 'module.exports = 3' },
          'w.json': { json: { a: [1] } },
          't.txt': { text: 'hello' },
          'b.bin': { data: 'AAEC' },
          odd: { js: 'export default 1', cjs: 'module.exports = 1' },
          empty: {},
        },
        providers: [
          { name: 'files' },
          { name: 'db', positionalArgs: false, prelude: 'db.x = 1', proxySource: 'const db = {}' },
        ],
        timeout: 1000,
        memoryLimit: 64,
        outbound: 'proxied',
        retainHandles: true,
        countHostWaits: false,
        consoleFormat: 'inspect',
      },
    },
  ],
  result: [
    { type: 'result', id: 'e1', envelope: { result: { ok: [1] }, logs: [{ level: 'log', text: 'hi' }] } },
    { type: 'result', id: 'e1', envelope: { error: 'boom', code: 'TIMEOUT', logs: [] } },
    { type: 'result', id: 'e1', envelope: { logs: [], executionId: 'abc' } },
    {
      type: 'result',
      id: 'e1',
      envelope: {
        error: 'boom',
        logs: [],
        errorKind: 'thrown',
        errorName: 'TypeError',
        errorStack: '    at executor.js:1:2',
      },
    },
    {
      type: 'result',
      id: 'e1',
      envelope: {
        error: 'not found',
        logs: [],
        errorKind: 'tool-failed',
        errorName: 'Error',
        errorProvider: 'github',
        errorTool: 'getIssue',
        errorAt: 'executor.js:3:24',
        notes: ['github.getIssue args.since: undefined was dropped'],
      },
    },
    {
      type: 'result',
      id: 'e1',
      envelope: { error: '[object Object]', logs: [], errorKind: 'thrown', errorJson: '{"status":404}' },
    },
    {
      type: 'result',
      id: 'e1',
      envelope: { error: 'x is not a function', logs: [], hint: 'Write an arrow.' },
    },
    {
      type: 'result',
      id: 'e1',
      envelope: {
        logs: [],
        paused: {
          reason: 'approval',
          data: { step: 1 },
          pending: [
            { sequence: 3, provider: 'api', tool: 'approve', args: '[1]' },
            { sequence: 4, provider: 'api', tool: 'slow', args: '[]', outcome: 'unknown' },
          ],
          token: 'cmdt.AAAA',
          tokenId: 't-1',
          expiresAt: 1_700_000_000_000,
        },
      },
    },
    { type: 'result', id: 'e1', envelope: { error: 'Replay diverged', code: 'REPLAY_DIVERGED', logs: [] } },
  ],
  dispatch: [
    { type: 'dispatch', id: 'e1', call: 0, provider: 'files', tool: 'read', args: '["a"]' },
    {
      type: 'dispatch',
      id: 'e1',
      call: 3,
      provider: 'shop',
      tool: 'refund',
      args: '[7]',
      durable: { sequence: 4, idempotencyKey: 'k-4', tokenId: 't-1' },
    },
  ],
  dispatchReply: [
    { type: 'dispatchReply', id: 'e1', call: 0, frame: ['returned', '{"result":1}'] },
    { type: 'dispatchReply', id: 'e1', call: 1, frame: ['thrown', 'no such file'] },
    {
      type: 'dispatchReply',
      id: 'e1',
      call: 3,
      frame: ['returned', '{"error":"paused"}'],
      paused: { reason: 'approval', data: { amount: 7 } },
    },
  ],
  resume: [
    {
      type: 'resume',
      id: 'r1',
      token: 'cmdt.AAAA',
      answers: [
        { sequence: 1, result: { ok: true } },
        { sequence: 2, error: 'refused' },
        { sequence: 3, perform: true },
      ],
      request: { code: 'async () => 1', durable: true },
    },
  ],
  discard: [{ type: 'discard', id: 'd1', token: 'cmdt.AAAA', request: { code: 'async () => 1' } }],
  discarded: [{ type: 'discarded', id: 'd1', tokenId: 't-1', claimed: false }],
  outbound: [{ type: 'outbound', id: 'e1', call: 2, request: httpRequest }],
  outboundReply: [
    { type: 'outboundReply', id: 'e1', call: 2, frame: ['returned', httpResponse] },
    { type: 'outboundReply', id: 'e1', call: 2, frame: ['thrown', 'connection refused'] },
  ],
  invoke: [{ type: 'invoke', id: 'i1', executionId: 'abc', handle: 'fetch', request: httpRequest }],
  invokeResult: [
    { type: 'invokeResult', id: 'i1', response: { ...httpResponse, body: new Uint8Array([1]) } },
  ],
  closeHandles: [{ type: 'closeHandles', id: 'c1', executionId: 'abc' }],
  ack: [{ type: 'ack', id: 'c1' }],
  cancel: [
    { type: 'cancel', id: 'e1' },
    { type: 'cancel', id: 'e1', reason: 'user pressed stop' },
  ],
  console: [
    { type: 'console', id: 'e1', lines: [] },
    {
      type: 'console',
      id: 'e1',
      lines: [
        { level: 'log', text: 'one' },
        { level: 'warn', text: 'two' },
      ],
    },
  ],
  fault: [
    { type: 'fault', code: 'BAD_REQUEST', message: 'bad' },
    { type: 'fault', id: 'e1', code: 'HANDLES_CLOSED', message: 'gone' },
    { type: 'fault', id: 'd1', code: 'TOKEN_EXPIRED', message: 'expired' },
  ],
};

describe('every message type', () => {
  test('has valid instances in this table', () => {
    expect(Object.keys(valid).sort()).toStrictEqual([...MESSAGE_TYPES].sort());
  });

  test.each(MESSAGE_TYPES.flatMap((type) => valid[type].map((message) => [type, message] as const)))(
    '%s accepts its valid form and survives the wire',
    (_, message) => {
      expect(validateMessage(message)).toStrictEqual({ ok: true, message });
      const decoded = decodeMessage(encodeMessage(message as never));
      expect(decoded).toStrictEqual({ ok: true, message });
    },
  );
});

/** Each malformed field and the sentence that must name it. */
const malformed: [string, unknown, string][] = [
  ['a list', [1], 'A message must be an object with a "type"; got a list.'],
  ['null', null, 'A message must be an object with a "type"; got null.'],
  [
    'no type',
    { id: 'x' },
    'Unknown message type none; expected one of hello, execute, console, result, dispatch, dispatchReply, outbound, outboundReply, invoke, invokeResult, closeHandles, ack, resume, discard, discarded, cancel, fault.',
  ],
  ['an unknown type', { type: 'exec' }, 'Unknown message type "exec"; expected one of'],
  ['hello without a version', { type: 'hello' }, 'Invalid hello message: protocol is required.'],
  [
    'hello with a token that is not text',
    { type: 'hello', protocol: 1, token: 7 },
    'Invalid hello message: token must be a string.',
  ],
  [
    'execute without code',
    { type: 'execute', id: 'e', request: {} },
    'Invalid execute message: request.code is required.',
  ],
  [
    'code that is a number',
    { type: 'execute', id: 'e', request: { code: 1 } },
    'request.code must be a string of source code',
  ],
  ['an empty id', { type: 'execute', id: '', request: { code: '' } }, 'id must not be empty'],
  [
    'a misspelt field',
    { type: 'execute', id: 'e', request: { code: '', timout: 5 } },
    "'timout' is not a known field in request",
  ],
  [
    'a zero timeout',
    { type: 'execute', id: 'e', request: { code: '', timeout: 0 } },
    'request.timeout must be at least 1 ms',
  ],
  [
    'a fractional timeout',
    { type: 'execute', id: 'e', request: { code: '', timeout: 1.5 } },
    'request.timeout must be a whole number of milliseconds',
  ],
  [
    'a timeout past 32 bits',
    { type: 'execute', id: 'e', request: { code: '', timeout: 2 ** 31 } },
    'request.timeout must be at most 2147483647 ms',
  ],
  [
    'a memory limit below the engine minimum',
    { type: 'execute', id: 'e', request: { code: '', memoryLimit: 4 } },
    'request.memoryLimit must be at least 8 MB',
  ],
  [
    'an outbound mode that does not exist',
    { type: 'execute', id: 'e', request: { code: '', outbound: 'maybe' } },
    "request.outbound must be one of 'disabled', 'proxied', 'native'",
  ],
  [
    'a provider without a name',
    { type: 'execute', id: 'e', request: { code: '', providers: [{}] } },
    'request.providers[0].name is required',
  ],
  [
    'a provider with a function',
    { type: 'execute', id: 'e', request: { code: '', providers: [{ name: 'a', fns: {} }] } },
    "'fns' is not a known field in request.providers[0]",
  ],
  [
    'a module that is a number',
    { type: 'execute', id: 'e', request: { code: '', modules: { a: 1 } } },
    'request.modules.a must be module source text or an object with one of js, cjs, json, text, data',
  ],
  [
    'a module key with a dot',
    { type: 'execute', id: 'e', request: { code: '', modules: { './a.js': 1 } } },
    'request.modules["./a.js"] must be module source text',
  ],
  [
    'retainHandles as text',
    { type: 'execute', id: 'e', request: { code: '', retainHandles: 'yes' } },
    'request.retainHandles must be a boolean',
  ],
  [
    'a log line of an unknown level',
    { type: 'result', id: 'e', envelope: { logs: [{ level: 'info', text: '' }] } },
    "envelope.logs[0].level must be one of 'log', 'warn', 'error'",
  ],
  ['an envelope without logs', { type: 'result', id: 'e', envelope: {} }, 'envelope.logs is required'],
  [
    'an unknown fault code',
    { type: 'result', id: 'e', envelope: { logs: [], code: 'OOPS' } },
    'envelope.code must be one of BAD_REQUEST',
  ],
  [
    'an error kind outside the closed set',
    { type: 'result', id: 'e', envelope: { logs: [], error: 'x', errorKind: 'forged' } },
    'envelope.errorKind must be one of syntax, typescript, thrown, tool-not-found',
  ],
  [
    'an error name past its bound',
    {
      type: 'result',
      id: 'e',
      envelope: { logs: [], error: 'x', errorName: 'N'.repeat(ERROR_NAME_LIMIT + 1) },
    },
    `envelope.errorName must be at most ${ERROR_NAME_LIMIT} characters`,
  ],
  [
    'an error stack past its bound',
    {
      type: 'result',
      id: 'e',
      envelope: { logs: [], error: 'x', errorStack: 's'.repeat(ERROR_STACK_LIMIT + 1) },
    },
    `envelope.errorStack must be at most ${ERROR_STACK_LIMIT} characters`,
  ],
  [
    'more notes than NOTE_LIMIT',
    { type: 'result', id: 'e', envelope: { logs: [], notes: Array(NOTE_LIMIT + 1).fill('n') } },
    `envelope.notes must hold at most ${NOTE_LIMIT} notes`,
  ],
  [
    'a note past its bound',
    { type: 'result', id: 'e', envelope: { logs: [], notes: ['n'.repeat(NOTE_TEXT_LIMIT + 1)] } },
    `envelope.notes[0] must be at most ${NOTE_TEXT_LIMIT} characters`,
  ],
  [
    'a thrown value past its bound',
    {
      type: 'result',
      id: 'e',
      envelope: { logs: [], error: 'x', errorJson: 'j'.repeat(ERROR_JSON_LIMIT + 1) },
    },
    `envelope.errorJson must be at most ${ERROR_JSON_LIMIT} characters`,
  ],
  [
    'a console format the executor does not know',
    { type: 'execute', id: 'e', request: { code: 'x', consoleFormat: 'pretty' } },
    "request.consoleFormat must be one of 'string', 'inspect'",
  ],
  [
    'a frame of the wrong kind',
    { type: 'dispatchReply', id: 'e', call: 0, frame: ['maybe', ''] },
    "frame must be ['returned', json] or ['thrown', text]",
  ],
  [
    'a negative call number',
    { type: 'dispatch', id: 'e', call: -1, provider: 'p', tool: 't', args: '[]' },
    'call must not be negative',
  ],
  [
    'headers that are not pairs',
    { type: 'outbound', id: 'e', call: 0, request: { ...httpRequest, headers: [['a']] } },
    'request.headers',
  ],
  [
    'a body that is text',
    { type: 'outbound', id: 'e', call: 0, request: { ...httpRequest, body: 'hi' } },
    'request.body must be bytes (a Uint8Array)',
  ],
  [
    'a status out of range',
    { type: 'invokeResult', id: 'i', response: { ...httpResponse, status: 600 } },
    'response.status must be at most 599',
  ],
  [
    'console lines that are not log lines',
    { type: 'console', id: 'e', lines: [{ level: 'debug', text: 'x' }] },
    'lines[0].level',
  ],
  [
    'a fault without a message',
    { type: 'fault', code: 'INTERNAL' },
    'Invalid fault message: message is required.',
  ],
];

/** Every message that names a retained execution, with `executionId` for that name. */
const withExecutionId = (executionId: unknown): [string, Record<string, unknown>, string][] => [
  ['invoke', { type: 'invoke', id: 'i1', executionId, handle: 'fetch', request: httpRequest }, 'executionId'],
  ['closeHandles', { type: 'closeHandles', id: 'c1', executionId }, 'executionId'],
  ['result', { type: 'result', id: 'e1', envelope: { logs: [], executionId } }, 'envelope.executionId'],
];

describe('an executionId', () => {
  // A server's instance (64 characters at most), a dot and a UUID: the longest id an executor mints.
  const longestMinted = `${'i'.repeat(64)}.${crypto.randomUUID()}`;

  test.each(withExecutionId(longestMinted))(
    'the longest an executor mints is accepted in %s',
    (_, message) => {
      expect(validateMessage(message)).toStrictEqual({ ok: true, message });
    },
  );

  test.each(withExecutionId('x'.repeat(ID_LIMIT)))(
    'of ID_LIMIT characters is accepted in %s',
    (_, message) => {
      expect(validateMessage(message)).toStrictEqual({ ok: true, message });
    },
  );

  for (const [what, executionId, rule] of [
    ['one past ID_LIMIT', 'x'.repeat(ID_LIMIT + 1), `must be at most ${ID_LIMIT} characters`],
    ['of 10 MB', 'x'.repeat(10 * 1024 * 1024), `must be at most ${ID_LIMIT} characters`],
    ['that is empty', '', 'must not be empty'],
    ['that is a number', 1, 'must be a string'],
  ] as const) {
    test.each(withExecutionId(executionId))(
      `${what} is refused in %s, naming the field and the rule`,
      (type, message, field) => {
        const id = typeof message.id === 'string' ? { id: message.id } : {};
        expect(validateMessage(message)).toStrictEqual({
          ok: false,
          fault: { code: 'BAD_REQUEST', message: `Invalid ${type} message: ${field} ${rule}.`, ...id },
        });
        // The same through the wire, where the hot checks decide first.
        expect(decodeMessage(stringifyForDispatch(message))).toStrictEqual(validateMessage(message));
      },
    );
  }

  test('handed to a call is checked by the same rule, and the refusal names the call, never the id', () => {
    expect(validateExecutionId(longestMinted, 'invoke')).toBe(longestMinted);
    const refusal = (executionId: unknown, call: string) => {
      try {
        validateExecutionId(executionId, call);
      } catch (error) {
        return {
          name: (error as Error).name,
          code: (error as { code?: string }).code,
          message: (error as Error).message,
        };
      }
      return undefined;
    };
    expect(refusal('x'.repeat(10 * 1024 * 1024), 'invoke')).toStrictEqual({
      name: 'BadRequestError',
      code: 'BAD_REQUEST',
      message: `Invalid invoke call: executionId must be at most ${ID_LIMIT} characters.`,
    });
    expect(refusal('', 'closeHandles')?.message).toBe(
      'Invalid closeHandles call: executionId must not be empty.',
    );
    expect(refusal(undefined, 'closeHandles')?.message).toBe(
      'Invalid closeHandles call: executionId is required.',
    );
    expect(refusal(7, 'invoke')?.message).toBe('Invalid invoke call: executionId must be a string.');
  });
});

describe('a malformed message', () => {
  test.each(malformed)('with %s yields a fault naming the field and the rule', (_, message, sentence) => {
    const decoded = validateMessage(message);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.fault.code).toBe('BAD_REQUEST');
    expect(decoded.fault.message).toContain(sentence);
    expect(decoded.fault.message).not.toMatch(/\n|"code":|ZodError/);
  });

  test('keeps the id of the conversation it belongs to, when one can be read', () => {
    const decoded = validateMessage({ type: 'execute', id: 'e9', request: {} });
    expect(decoded).toMatchObject({ ok: false, fault: { id: 'e9', code: 'BAD_REQUEST' } });
  });

  test('with millions of wrong entries costs one issue, not one per entry', () => {
    const ones = Array.from({ length: 1_000_000 }, () => 1);
    const modules = Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`m${index}`, 1]));
    const request = { code: 'async () => 1', providers: ones, modules };
    expect(validateMessage({ type: 'execute', id: 'e1', request })).toStrictEqual({
      ok: false,
      fault: {
        id: 'e1',
        code: 'BAD_REQUEST',
        message:
          'Invalid execute message: request.modules must hold at most 10000 entries; request.providers must hold at most 1024 providers.',
      },
    });
  });

  test('names the first ten issues and counts the rest', () => {
    const request = { code: 'async () => 1', providers: Array.from({ length: 30 }, () => 1) };
    const decoded = validateMessage({ type: 'execute', id: 'e2', request });
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.fault.message.split('; ')).toHaveLength(11);
    expect(decoded.fault.message).toMatch(/; and 20 more\.$/);
  });

  test('that is not JSON is refused as such', () => {
    expect(decodeMessage('{"type":')).toMatchObject({
      ok: false,
      fault: {
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^The message is not codec JSON: Malformed JSON/),
      },
    });
  });

  test('past the payload limit is refused before it is parsed', () => {
    const text = stringifyForDispatch({ type: 'hello', protocol: 1, pad: 'x'.repeat(100) });
    expect(decodeMessage(text, 50)).toStrictEqual({
      ok: false,
      fault: {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The message is ${text.length} bytes, past the 50-byte payload limit.`,
      },
    });
    expect(decodeMessage(text, PAYLOAD_LIMIT).ok).toBe(false);
  });

  test('is refused on the way out too, past the limit', () => {
    expect(() => encodeMessage({ type: 'fault', code: 'INTERNAL', message: 'x'.repeat(100) }, 50)).toThrow(
      /^The fault message is \d+ bytes, past the 50-byte payload limit\.$/,
    );
  });
});

describe("a pool child's console message", () => {
  test('holds at most LOG_LINE_LIMIT lines, refused by that rule before its lines are read one by one', () => {
    // A million bad lines from a taken-over child: each was its own issue, 2 s and 690 MB of the
    // parent's (the caller's) process for a 2 MB message; the bound is checked first.
    const flood = JSON.stringify({ type: 'console', id: 'run', lines: new Array(VALUE_LIMIT - 100).fill(1) });
    expect(decodeMessage(flood)).toStrictEqual({
      ok: false,
      fault: {
        code: 'BAD_REQUEST',
        id: 'run',
        message: `Invalid console message: lines must hold at most ${LOG_LINE_LIMIT} lines.`,
      },
    });
    const line = { level: 'log', text: 'x' } as const;
    const full = decodeMessage(
      encodeMessage({ type: 'console', id: 'run', lines: new Array(LOG_LINE_LIMIT).fill(line) }),
    );
    expect(full.ok).toBe(true);
  });
});

describe('validate', () => {
  test('throws a BadRequestError naming what was validated', () => {
    expect(() => validate(ExecuteRequestSchema, { code: 1, timeout: -1 }, 'execute request')).toThrow(
      'Invalid execute request: code must be a string of source code; timeout must be at least 1 ms.',
    );
    try {
      validate(ExecuteRequestSchema, {}, 'execute request');
    } catch (error) {
      expect(error).toMatchObject({ name: 'BadRequestError', code: 'BAD_REQUEST' });
    }
  });

  test('passes a valid value through', () => {
    expect(validate(ExecuteRequestSchema, { code: 'x' }, 'execute request')).toStrictEqual({ code: 'x' });
  });
});
