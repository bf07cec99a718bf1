/**
 * The pool's message table (src/pool/messages/table.ts): the protocol's messages it shares, taken
 * as the protocol defines them, and the pool's own, each accepted in its valid forms, surviving
 * the wire, and refused, naming the field and the rule, in its malformed ones. The protocol's
 * messages are tested with the protocol (packages/protocol/src/messages.test.ts).
 */
import {
  ID_LIMIT,
  MESSAGE_SCHEMAS,
  MessageIdSchema,
  stringifyForDispatch,
  VALUE_LIMIT,
} from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import {
  POOL_MESSAGE_SCHEMAS,
  POOL_VALIDATION,
  type PoolMessageType,
  validatePoolMessage,
} from '../../../src/pool/messages/table.ts';
import { encodePoolMessage } from '../../../src/pool/messages/wire.ts';
import { TINY_BUNDLE } from '../helpers.ts';

const decodePoolMessage = POOL_VALIDATION.decode;

/** The pool's own types: those of its table the protocol's does not have. */
const POOL_ONLY_TYPES = (Object.keys(POOL_MESSAGE_SCHEMAS) as PoolMessageType[]).filter(
  (type) => !Object.hasOwn(MESSAGE_SCHEMAS, type),
);

/** One valid instance of every message type of the pool's own, so a new type without one fails here. */
const valid: Record<string, unknown[]> = {
  hostWait: [
    { type: 'hostWait', id: 'e1', waiting: true },
    { type: 'hostWait', id: 'e1', waiting: false },
  ],
  prepared: [{ type: 'prepared' }],
  outOfMemory: [
    { type: 'outOfMemory', conversations: ['x1'], memoryLimit: 64, cause: 'engine' },
    {
      type: 'outOfMemory',
      conversations: ['c3', 'c4'],
      executionId: 'e-1',
      memoryLimit: 128,
      cause: 'backstop',
      rss: 400_000_000,
      ceiling: 390_000_000,
    },
  ],
  timedOut: [
    { type: 'timedOut', conversations: ['x1'], timeout: 50 },
    { type: 'timedOut', conversations: ['i2'], executionId: 'e-1', timeout: 1000 },
  ],
  handlesClosed: [{ type: 'handlesClosed', executionId: 'e-1', message: 'Execution e-1 holds no handles.' }],
  wedged: [
    { type: 'wedged', settle: 200 },
    { type: 'wedged', settle: 200, id: 'c7' },
  ],
  heartbeat: [{ type: 'heartbeat', id: 'h1' }],
  health: [
    {
      type: 'health',
      id: 'h1',
      engine: {
        isolatedVm: '6.2.0',
        node: 'v24.22.3',
        behaviours: {
          dynamicImportCallback: { present: false, reason: 'the callback never fired' },
          settleAfterTopLevelAwait: { present: true },
        },
        fallbacks: ['import() expressions are rewritten'],
      },
      rss: 73_400_320,
      executions: 12,
      retained: 0,
    },
    {
      type: 'health',
      id: 'h2',
      engine: { isolatedVm: '7.0.1', node: 'v24.22.3', behaviours: {}, fallbacks: [] },
      rss: 70_000_000,
      executions: 0,
      retained: 0,
      start: {
        snapshot: 'built',
        refused: "the snapshot's bytes do not match the CRC-32 that came with them",
      },
    },
    {
      type: 'health',
      id: 'h3',
      engine: { isolatedVm: '7.0.1', node: 'v24.22.3', behaviours: {}, fallbacks: [] },
      rss: 70_000_000,
      executions: 0,
      retained: 0,
      start: { snapshot: 'built', key: 'b'.repeat(64), digest: 'c'.repeat(64) },
    },
    {
      type: 'health',
      id: 'h4',
      engine: { isolatedVm: '7.0.1', node: 'v24.22.3', behaviours: {}, fallbacks: [] },
      rss: 70_000_000,
      executions: 0,
      retained: 0,
      start: { snapshot: 'cached', key: 'b'.repeat(64), digest: 'c'.repeat(64) },
    },
    {
      type: 'health',
      id: 'h5',
      engine: { isolatedVm: '7.0.1', node: 'v24.22.3', behaviours: {}, fallbacks: [] },
      rss: 70_000_000,
      executions: 0,
      retained: 0,
      start: { snapshot: 'built', cacheRefused: 'the cache entry x.start is a link' },
    },
  ],
  snapshot: [{ type: 'snapshot', bytes: new Uint8Array([4, 5, 6]) }],
  handOn: [
    {
      type: 'handOn',
      key: '["runtime snapshot","0a1b2c3d-712345"]',
      digest: '0123456789abcdef'.repeat(4),
      check: 0xffffffff,
      snapshot: new Uint8Array([1, 2, 3]),
      engine: {
        isolatedVm: '7.0.1',
        node: 'v24.22.3',
        behaviours: { moduleCodeCache: { present: false, reason: 'the compile made no code cache' } },
        fallbacks: ['modules compile from source'],
      },
    },
  ],
  packages: [
    { type: 'packages', bundle: { packages: [] } },
    { type: 'packages', bundle: TINY_BUNDLE },
  ],
};

/** The protocol's messages that carry one more field in the pool's table, a durable run's. */
const DURABLE_FIELDS: Record<string, string> = {
  execute: 'durable',
  result: 'journal',
};

const journal = [
  {
    provider: 'api',
    tool: 'get',
    args: '[1]',
    settled: { order: 1, time: 1_700_000_000_000, frame: ['returned', '{"result":10}'] },
  },
  { provider: 'api', tool: 'approve', args: '[2]' },
  { provider: 'api', tool: 'slow', args: '[]', unknown: true },
];
const timers = [{ ms: 10, settled: { order: 2, time: 1_700_000_000_010, count: 1 } }, { ms: 2.5 }];
const fetches = [
  {
    request: 'hash-of-the-request',
    settled: {
      order: 3,
      time: 1_700_000_000_020,
      frame: '["returned",{"status":200,"statusText":"OK","headers":[],"body":3}]',
      body: new Uint8Array([1, 2, 3]),
    },
  },
  { request: 'another', settled: { order: 4, time: 1_700_000_000_020, frame: '["thrown","lost","Error"]' } },
  { request: 'unsent' },
];
const loads = [{ settled: { order: 5, time: 1_700_000_000_020 } }, {}];

/** One valid instance of each durable field, so a field added without one is seen here. */
const durableValid: [string, unknown][] = [
  [
    'execute',
    {
      type: 'execute',
      id: 'x1',
      request: { code: 'async () => 1', durable: true },
      durable: { seed: [1, -2, 2 ** 31 - 1, -(2 ** 31)], startedAt: 1_700_000_000_000, logCount: 0 },
    },
  ],
  [
    'execute',
    {
      type: 'execute',
      id: 'x2',
      request: { code: 'async () => 1', durable: true },
      durable: {
        seed: [1, 2, 3, 4],
        startedAt: 1_700_000_000_000,
        logCount: 3,
        replay: {
          journal,
          timers,
          fetches,
          loads,
          answers: [
            { sequence: 2, frame: ['returned', '{"result":true}'] },
            { sequence: 3, perform: true },
          ],
        },
      },
    },
  ],
  [
    'result',
    {
      type: 'result',
      id: 'x1',
      envelope: { logs: [] },
      journal: { journal, timers, fetches, loads, written: 2 },
    },
  ],
];

describe('the pool table', () => {
  test("holds the protocol's messages a pool and a child exchange, as the protocol defines them", () => {
    const shared = Object.keys(POOL_MESSAGE_SCHEMAS).filter((type) => Object.hasOwn(MESSAGE_SCHEMAS, type));
    // Every protocol message but the connection's opening and a durable run's resume and discard,
    // which the executor answers in the caller's process: no pool child speaks them.
    const unspoken = ['hello', 'resume', 'discard', 'discarded'];
    expect(shared).toStrictEqual(Object.keys(MESSAGE_SCHEMAS).filter((type) => !unspoken.includes(type)));
    for (const type of shared) {
      const protocol = MESSAGE_SCHEMAS[type as keyof typeof MESSAGE_SCHEMAS];
      const pool = POOL_MESSAGE_SCHEMAS[type as PoolMessageType];
      const field = DURABLE_FIELDS[type];
      if (field === undefined) {
        expect(pool).toBe(protocol);
        continue;
      }
      // A durable run's four: the protocol's fields, and one more of the pool's own, last.
      expect(Object.keys(pool.shape)).toStrictEqual([...Object.keys(protocol.shape), field]);
    }
  });

  test.each(durableValid)('%s with its durable field is accepted and survives the wire', (_, message) => {
    expect(validatePoolMessage(message)).toStrictEqual({ ok: true, message });
    expect(decodePoolMessage(encodePoolMessage(message as never))).toStrictEqual({ ok: true, message });
  });

  test("holds the pool's own messages, each with valid instances in this table", () => {
    expect(POOL_ONLY_TYPES).toStrictEqual([
      'hostWait',
      'prepared',
      'outOfMemory',
      'timedOut',
      'handlesClosed',
      'wedged',
      'heartbeat',
      'health',
      'packages',
      'handOn',
      'snapshot',
    ]);
    expect(Object.keys(valid).sort()).toStrictEqual([...POOL_ONLY_TYPES].sort());
  });

  test.each(
    POOL_ONLY_TYPES.flatMap((type) => (valid[type] ?? []).map((message) => [type, message] as const)),
  )('%s accepts its valid form and survives the wire', (_, message) => {
    expect(validatePoolMessage(message)).toStrictEqual({ ok: true, message });
    const decoded = decodePoolMessage(encodePoolMessage(message as never));
    expect(decoded).toStrictEqual({ ok: true, message });
  });

  test("refuses a type it does not hold, the protocol's hello among them, naming the types it holds", () => {
    for (const type of ['hello', 'shout']) {
      expect(validatePoolMessage({ type, id: 'c1' })).toStrictEqual({
        ok: false,
        fault: {
          id: 'c1',
          code: 'BAD_REQUEST',
          message: `Unknown message type "${type}"; expected one of ${Object.keys(POOL_MESSAGE_SCHEMAS).join(', ')}.`,
        },
      });
    }
  });
});

/** Each malformed field and the sentence that must name it. */
const malformed: [string, unknown, string][] = [
  [
    'a durable start with a seed of three words',
    {
      type: 'execute',
      id: 'x',
      request: { code: '' },
      durable: { seed: [1, 2, 3], startedAt: 0, logCount: 0 },
    },
    'durable.seed',
  ],
  [
    'a journal entry whose settlement has no frame',
    {
      type: 'result',
      id: 'x',
      envelope: { logs: [] },
      journal: {
        journal: [{ provider: 'a', tool: 'b', args: '[]', settled: { order: 1, time: 0 } }],
        timers: [],
        fetches: [],
        loads: [],
        written: 0,
      },
    },
    'journal.journal must be a list of journal entries',
  ],
  [
    'a fetch entry whose body is not bytes',
    {
      type: 'result',
      id: 'x',
      envelope: { logs: [] },
      journal: {
        journal: [],
        timers: [],
        fetches: [{ request: 'r', settled: { order: 1, time: 0, frame: '[]', body: [1, 2] } }],
        loads: [],
        written: 0,
      },
    },
    'journal.fetches must be a list of fetch entries',
  ],
  [
    'a replay answer that neither gives a frame nor performs',
    {
      type: 'execute',
      id: 'x',
      request: { code: '' },
      durable: {
        seed: [1, 2, 3, 4],
        startedAt: 0,
        logCount: 0,
        replay: {
          journal: [],
          timers: [],
          fetches: [],
          loads: [],
          answers: [{ sequence: 1, perform: false }],
        },
      },
    },
    'durable.replay.answers must be a list of answers',
  ],
  [
    'a host-wait edge that is not a boolean',
    { type: 'hostWait', id: 'e', waiting: 1 },
    'Invalid hostWait message: waiting must be a boolean.',
  ],
  ['a heartbeat without an id', { type: 'heartbeat' }, 'Invalid heartbeat message: id is required.'],
  [
    'a negative timeout of a failed termination',
    { type: 'timedOut', conversations: ['x1'], timeout: -1 },
    'timeout must not be negative',
  ],
  [
    'a wedged report with a fractional settle',
    { type: 'wedged', settle: 0.5 },
    'settle must be a whole number',
  ],
  [
    'a wedged report naming its answer by a number',
    { type: 'wedged', settle: 200, id: 7 },
    'Invalid wedged message: id must be a string.',
  ],
  [
    'a closed retained execution without its reason',
    { type: 'handlesClosed', executionId: 'e-1' },
    'Invalid handlesClosed message: message is required.',
  ],
  [
    'health whose behaviour lacks present',
    {
      type: 'health',
      id: 'h',
      engine: { isolatedVm: '6', node: 'v24', behaviours: { probe: {} }, fallbacks: [] },
      rss: 1,
      executions: 0,
      retained: 0,
    },
    'engine.behaviours.probe.present is required',
  ],
  [
    'health with a negative rss',
    {
      type: 'health',
      id: 'h',
      engine: { isolatedVm: '6', node: 'v24', behaviours: {}, fallbacks: [] },
      rss: -1,
      executions: 0,
      retained: 0,
    },
    'rss must not be negative',
  ],
  [
    'packages whose subpath belongs to another package',
    {
      type: 'packages',
      bundle: {
        packages: [
          {
            name: 'a',
            version: '1',
            source: '',
            requires: [],
            subpaths: { b: { format: 'esm', names: [] } },
          },
        ],
      },
    },
    'Invalid packages message: bundle must be a package bundle.',
  ],
  [
    'health whose start names neither kind',
    {
      type: 'health',
      id: 'h',
      engine: { isolatedVm: '6', node: 'v24', behaviours: {}, fallbacks: [] },
      rss: 1,
      executions: 0,
      retained: 0,
      start: { snapshot: 'copied' },
    },
    'start.snapshot must be handedOn, cached or built',
  ],
  [
    'a start handed on under an empty key',
    { ...handOnMessage(), key: '' },
    'Invalid handOn message: key must not be empty.',
  ],
  [
    'a start handed on whose check is no CRC-32',
    { ...handOnMessage(), check: 2 ** 32 },
    'Invalid handOn message: check must be at most 4294967295 (a CRC-32).',
  ],
  [
    'a start handed on whose snapshot is text',
    { ...handOnMessage(), snapshot: 'AAEC' },
    'Invalid handOn message: snapshot must be bytes (a Uint8Array) of at most',
  ],
  [
    'a snapshot that is not bytes',
    { type: 'snapshot', bytes: [1, 2] },
    'Invalid snapshot message: bytes must be bytes (a Uint8Array) of at most',
  ],
  [
    'health whose start commits to a digest that is no SHA-256',
    {
      type: 'health',
      id: 'h',
      engine: { isolatedVm: '6', node: 'v24', behaviours: {}, fallbacks: [] },
      rss: 1,
      executions: 0,
      retained: 0,
      start: { snapshot: 'built', digest: 'not hex' },
    },
    'start.digest must be a SHA-256 in 64 lowercase hexadecimal digits',
  ],
  [
    'a start handed on without its engine report',
    { ...handOnMessage(), engine: undefined },
    'Invalid handOn message: engine is required.',
  ],
];

/** A valid handOn message to break one field of. */
function handOnMessage(): Record<string, unknown> {
  return { ...(valid.handOn?.[0] as Record<string, unknown>) };
}

describe('a malformed pool message', () => {
  test.each(malformed)('with %s yields a fault naming the field and the rule', (_, message, sentence) => {
    const decoded = validatePoolMessage(message);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.fault.code).toBe('BAD_REQUEST');
    expect(decoded.fault.message).toContain(sentence);
    expect(decoded.fault.message).not.toMatch(/\n|"code":|ZodError/);
  });
});

/** Every message of the pool's own that names a retained execution, with `executionId` for that name. */
const withExecutionId = (executionId: unknown): [string, Record<string, unknown>, string][] => [
  [
    'outOfMemory',
    { type: 'outOfMemory', conversations: ['x1'], executionId, memoryLimit: 64, cause: 'engine' },
    'executionId',
  ],
  ['timedOut', { type: 'timedOut', conversations: ['x1'], executionId, timeout: 50 }, 'executionId'],
  ['handlesClosed', { type: 'handlesClosed', executionId, message: 'closed' }, 'executionId'],
];

describe('an executionId in a pool message', () => {
  // A server's instance (64 characters at most), a dot and a UUID: the longest id an executor mints.
  const longestMinted = `${'i'.repeat(64)}.${crypto.randomUUID()}`;

  test.each(withExecutionId(longestMinted))(
    'the longest an executor mints is accepted in %s',
    (_, message) => {
      expect(validatePoolMessage(message)).toStrictEqual({ ok: true, message });
    },
  );

  test.each(withExecutionId('x'.repeat(ID_LIMIT)))(
    'of ID_LIMIT characters is accepted in %s',
    (_, message) => {
      expect(validatePoolMessage(message)).toStrictEqual({ ok: true, message });
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
        expect(validatePoolMessage(message)).toStrictEqual({
          ok: false,
          fault: { code: 'BAD_REQUEST', message: `Invalid ${type} message: ${field} ${rule}.` },
        });
        // The same through the wire, where the hot checks decide first.
        expect(decodePoolMessage(stringifyForDispatch(message))).toStrictEqual(validatePoolMessage(message));
      },
    );
  }
});

describe("a pool child's list of conversations", () => {
  test('of a million bad ids is refused as one list, before its ids are read one by one', () => {
    for (const type of ['outOfMemory', 'timedOut'] as const) {
      const flood = JSON.stringify({
        type,
        conversations: new Array(VALUE_LIMIT - 100).fill(1),
        ...(type === 'outOfMemory' ? { memoryLimit: 64, cause: 'engine' } : { timeout: 50 }),
      });
      expect(decodePoolMessage(flood)).toStrictEqual({
        ok: false,
        fault: {
          code: 'BAD_REQUEST',
          message: `Invalid ${type} message: conversations must be a list of message ids.`,
        },
      });
    }
    const many = Array.from({ length: 10_000 }, (_, index) => `i${index}`);
    expect(
      decodePoolMessage(encodePoolMessage({ type: 'timedOut', conversations: many, timeout: 50 })),
    ).toStrictEqual({
      ok: true,
      message: { type: 'timedOut', conversations: many, timeout: 50 },
    });
  });

  test('accepts exactly the ids its elements accept: an id the id rule counts in code points too', () => {
    // 100 emoji: 200 UTF-16 units, 100 code points. zod's max() reads the code points, so the list
    // check must ask the element's own schema, not count units.
    const ids = ['😀'.repeat(100), 'x'.repeat(ID_LIMIT)];
    for (const id of ids) expect(MessageIdSchema.safeParse(id).success).toBe(true);
    expect(validatePoolMessage({ type: 'timedOut', conversations: ids, timeout: 50 })).toStrictEqual({
      ok: true,
      message: { type: 'timedOut', conversations: ids, timeout: 50 },
    });
    expect(
      validatePoolMessage({ type: 'timedOut', conversations: ['x'.repeat(ID_LIMIT + 1)], timeout: 50 }).ok,
    ).toBe(false);
  });
});
