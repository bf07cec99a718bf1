/**
 * Malformed and hostile protocol messages, as text, for the fuzzers: valid messages cut short,
 * with a field of the wrong type, numbers past any range, nesting thousands deep, unknown or
 * missing types, codec tags misused, bytes inserted, removed or doubled, random JSON and random
 * text; and valid messages a client may send at the wrong moment (a reply nobody waits for, a
 * second hello, messages only the executor sends). Built with fast-check, so a failure shrinks to
 * the smallest text that still fails.
 */
import { stringifyForDispatch } from '@supolka/codemode-protocol';
import fc from 'fast-check';

export type HostileFamily =
  | 'truncated'
  | 'wrongType'
  | 'hugeNumber'
  | 'deepNesting'
  | 'unknownType'
  | 'codecTag'
  | 'mutated'
  | 'randomJson'
  | 'randomText'
  | 'wrongOrder';

export interface HostileMessage {
  readonly family: HostileFamily;
  readonly text: string;
}

const id = fc.oneof(
  fc.constant('fuzz'),
  fc.string({ maxLength: 12 }).map((text) => `fuzz-${text}`),
);
const call = fc.nat({ max: 1000 });
const httpRequest = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  url: fc.constantFrom('https://fuzz.test/', 'http://127.0.0.1/x'),
  headers: fc.constant([['x-fuzz', '1']]),
  body: fc.oneof(fc.constant(null), fc.uint8Array({ maxLength: 16 })),
});
const httpResponse = fc.record({
  status: fc.constantFrom(200, 404),
  statusText: fc.constant(''),
  headers: fc.constant([]),
  body: fc.uint8Array({ maxLength: 16 }),
});

/**
 * Messages the schemas accept that a client sends. The fuzzers' executes never run long: their
 * code returns at once or does not compile, and their timeout is short.
 */
const clientMessage = fc.oneof(
  fc.record({ type: fc.constant('hello'), protocol: fc.constant(1) }),
  fc.record({
    type: fc.constant('execute'),
    id,
    request: fc.record(
      {
        code: fc.constantFrom('async () => 1', 'async () => {', 'async () => { throw new Error("fuzz") }'),
        timeout: fc.constantFrom(100, 1000),
        memoryLimit: fc.constant(32),
        modules: fc.constant({ 'fuzz.js': 'export default 1' }),
      },
      { requiredKeys: ['code'] },
    ),
  }),
  fc.record({
    type: fc.constant('dispatchReply'),
    id,
    call,
    frame: fc.oneof(
      fc.tuple(fc.constant('returned'), fc.json()),
      fc.tuple(fc.constant('thrown'), fc.string()),
    ),
  }),
  fc.record({
    type: fc.constant('outboundReply'),
    id,
    call,
    frame: fc.oneof(
      fc.tuple(fc.constant('returned'), httpResponse),
      fc.tuple(fc.constant('thrown'), fc.string()),
    ),
  }),
  fc.record({
    type: fc.constant('invoke'),
    id,
    executionId: fc.uuid(),
    handle: fc.constant('fetch'),
    request: httpRequest,
  }),
  fc.record({ type: fc.constant('closeHandles'), id, executionId: fc.uuid() }),
  fc.record({ type: fc.constant('cancel'), id }),
);

/** Messages only the executor sends: a client sending one is out of order. */
const executorMessage = fc.oneof(
  fc.record({ type: fc.constant('result'), id, envelope: fc.constant({ logs: [] }) }),
  fc.record({ type: fc.constant('ack'), id }),
  fc.record({
    type: fc.constant('dispatch'),
    id,
    call,
    provider: fc.constant('tools'),
    tool: fc.constant('echo'),
    args: fc.constant('[]'),
  }),
  fc.record({ type: fc.constant('outbound'), id, call, request: httpRequest }),
  fc.record({ type: fc.constant('invokeResult'), id, response: httpResponse }),
  fc.record({ type: fc.constant('fault'), code: fc.constant('INTERNAL'), message: fc.string() }),
);

const anyMessage = fc.oneof(clientMessage, executorMessage);
const validText = anyMessage.map((message) => stringifyForDispatch(message));

/** A JSON value of another kind than the one it replaces. */
const otherValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 8 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
);

/** Replaces the value at one path of a message with a value of another type. */
function replaceAt(value: unknown, path: readonly number[], replacement: unknown): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const [step, ...rest] = path as [number, ...number[]];
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const index = step % value.length;
    return value.map((item, at) => (at === index ? replaceAt(item, rest, replacement) : item));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[step % keys.length] as string;
  return { ...value, [key]: replaceAt((value as Record<string, unknown>)[key], rest, replacement) };
}

const wrongType = fc
  .tuple(clientMessage, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), otherValue)
  .map(([message, path, replacement]) => JSON.stringify(replaceAt(message, path, replacement)));

/** Number texts JSON allows that no field means: past double range, past safe integers, negative zero, tiny. */
const hugeNumberText = fc.oneof(
  fc.constantFrom('1e309', '-1e309', '1e999999', '9007199254740993', '-0', '1e-400', '0.0000001', '-1'),
  fc.bigInt({ min: 10n ** 20n, max: 10n ** 400n }).map(String),
  fc.integer({ min: 300, max: 100_000 }).map((exponent) => `1e${exponent}`),
);
const hugeNumber = fc
  .tuple(
    hugeNumberText,
    fc.constantFrom(
      'hello',
      'execute timeout',
      'execute memoryLimit',
      'dispatchReply',
      'outboundReply status',
    ),
  )
  .map(([number, where]) => {
    switch (where) {
      case 'hello':
        return `{"type":"hello","protocol":${number}}`;
      case 'execute timeout':
        return `{"type":"execute","id":"fuzz","request":{"code":"async () => 1","timeout":${number}}}`;
      case 'execute memoryLimit':
        return `{"type":"execute","id":"fuzz","request":{"code":"async () => 1","memoryLimit":${number}}}`;
      case 'dispatchReply':
        return `{"type":"dispatchReply","id":"fuzz","call":${number},"frame":["returned","1"]}`;
      default:
        return `{"type":"outboundReply","id":"fuzz","call":1,"frame":["returned",{"status":${number},"statusText":"","headers":[],"body":null}]}`;
    }
  });

/** Nesting `depth` deep, of arrays or objects, in a field that takes a value, a string, or the whole message. */
export function nested(depth: number, objects: boolean): string {
  return objects
    ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}
const deepNesting = (maxDepth: number) =>
  fc
    .tuple(
      fc.integer({ min: 100, max: maxDepth }),
      fc.boolean(),
      fc.constantFrom('message', 'modules', 'frame', 'headers', 'envelope', 'request'),
    )
    .map(([depth, objects, where]) => {
      const deep = nested(depth, objects);
      switch (where) {
        case 'message':
          return deep;
        case 'modules':
          return `{"type":"execute","id":"fuzz","request":{"code":"async () => 1","modules":{"m.js":${deep}}}}`;
        case 'frame':
          return `{"type":"dispatchReply","id":"fuzz","call":1,"frame":["returned",${deep}]}`;
        case 'headers':
          return `{"type":"invoke","id":"fuzz","executionId":"x","handle":"fetch","request":{"method":"GET","url":"https://fuzz.test/","headers":${deep},"body":null}}`;
        case 'envelope':
          return `{"type":"result","id":"fuzz","envelope":${deep}}`;
        default:
          return `{"type":"execute","id":"fuzz","request":${deep}}`;
      }
    });

const unknownType = fc
  .tuple(
    fc.oneof(
      fc.string({ maxLength: 16 }).map((text) => JSON.stringify(text)),
      fc.constantFrom(
        'null',
        '1',
        'true',
        '[]',
        '{}',
        '"__proto__"',
        '"constructor"',
        '"toString"',
        '"HELLO"',
        '"execute "',
        // The pool's own messages with its children, which the protocol does not know.
        '"heartbeat"',
        '"prepared"',
        '"hostWait"',
        '"wedged"',
      ),
    ),
    fc.boolean(),
  )
  .map(([type, withId]) => (withId ? `{"type":${type},"id":"fuzz"}` : `{"type":${type}}`));

/** The codec's tags where they do not belong or spelled wrong: binary that is not base64, a type that is no view, an escape that is no list. */
const codecTag = fc
  .tuple(
    fc.constantFrom(
      '{"$binary":"Uint8Array","base64":"!!!"}',
      '{"$binary":"Function","base64":"AA=="}',
      '{"$binary":"Uint8Array"}',
      '{"$binary":"Float64Array","base64":"AAE="}',
      '{"$binary":1,"base64":"AA=="}',
      '{"$object":"not a list"}',
      '{"$object":[["a"]]}',
      '{"$object":[[1,2]]}',
      '{"$object":[["__proto__",{"x":1}]]}',
      '{"\\u0024binary":"Uint8Array","base64":"AA=="}',
      '{"$binary":"Uint8Array","base64":"AA==","extra":1}',
    ),
    fc.constantFrom('body', 'frame'),
  )
  .map(([tagged, where]) =>
    where === 'body'
      ? `{"type":"invoke","id":"fuzz","executionId":"x","handle":"fetch","request":{"method":"POST","url":"https://fuzz.test/","headers":[],"body":${tagged}}}`
      : `{"type":"outboundReply","id":"fuzz","call":1,"frame":["returned",{"status":200,"statusText":"","headers":[],"body":${tagged}}]}`,
  );

/** Edits of a valid text: a character inserted, removed or replaced, a stretch doubled, the type spelled with escapes. */
const mutated = fc
  .tuple(
    validText,
    fc.nat(),
    fc.nat(),
    fc.constantFrom('insert', 'remove', 'replace', 'double', 'escape'),
    fc.string({ minLength: 1, maxLength: 3, unit: 'binary' }),
  )
  .map(([text, a, b, edit, inserted]) => {
    const at = a % (text.length + 1);
    const to = Math.min(text.length, at + (b % 32));
    switch (edit) {
      case 'insert':
        return text.slice(0, at) + inserted + text.slice(at);
      case 'remove':
        return text.slice(0, at) + text.slice(to);
      case 'replace':
        return text.slice(0, at) + inserted + text.slice(at + inserted.length);
      case 'double':
        return text.slice(0, to) + text.slice(at, to) + text.slice(to);
      default:
        return text.replace('"type"', '"\\u0074ype"');
    }
  });

const truncated = fc.tuple(validText, fc.nat()).map(([text, cut]) => text.slice(0, cut % text.length));

/**
 * One hostile message of any family, as text. `maxDepth` bounds the nesting family, so a
 * million-message run in one process spends its time on variety rather than on a few huge texts.
 */
export function hostileMessage(maxDepth = 5000): fc.Arbitrary<HostileMessage> {
  const family = (name: HostileFamily, texts: fc.Arbitrary<string>) =>
    texts.map((text): HostileMessage => ({ family: name, text }));
  return fc.oneof(
    family('truncated', truncated),
    family('wrongType', wrongType),
    family('hugeNumber', hugeNumber),
    family('deepNesting', deepNesting(maxDepth)),
    family('unknownType', unknownType),
    family('codecTag', codecTag),
    family('mutated', mutated),
    family('randomJson', fc.json({ depthSize: 'small' })),
    family('randomText', fc.string({ maxLength: 64, unit: 'binary' })),
    family('wrongOrder', validText),
  );
}

/**
 * A few texts at the bounds, too large to draw a million of: a million levels of nesting, a
 * million values, a 10 MB program, a text one past PAYLOAD_LIMIT, lone surrogates. Built when
 * asked, since they are tens of MB together.
 */
export function* extremeMessages(payloadLimit: number): Generator<HostileMessage> {
  yield { family: 'deepNesting', text: nested(1_000_000, false) };
  yield { family: 'deepNesting', text: nested(300_000, true) };
  yield {
    family: 'deepNesting',
    text: `{"type":"dispatchReply","id":"fuzz","call":1,"frame":["returned",${nested(500_000, false)}]}`,
  };
  yield {
    family: 'hugeNumber',
    text: `{"type":"dispatchReply","id":"fuzz","call":1${'0'.repeat(1_000_000)},"frame":["returned","1"]}`,
  };
  yield {
    family: 'wrongType',
    text: `{"type":"execute","id":"fuzz","request":{"code":[${'1,'.repeat(1_100_000)}1]}}`,
  };
  yield {
    family: 'wrongOrder',
    text: `{"type":"execute","id":"fuzz","request":{"code":${JSON.stringify(`async () => ${'1+'.repeat(5_000_000)}1`)}}}`,
  };
  yield {
    family: 'truncated',
    text: `{"type":"execute","id":"fuzz","request":{"code":"${'x'.repeat(payloadLimit)}"}}`,
  };
  yield { family: 'mutated', text: '{"type":"execute","id":"\\ud800","request":{"code":"\\udfff"}}' };
  yield { family: 'mutated', text: `{"type":"hello","protocol":1,${'"x":1,'.repeat(200_000)}"y":1}` };
  yield { family: 'unknownType', text: `{${'"type":"hello",'.repeat(100_000)}"protocol":1}` };
}
