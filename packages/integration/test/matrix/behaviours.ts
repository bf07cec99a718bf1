/**
 * The rows of the path matrix: each behaviour once, with the outcome every door answers after its
 * own mapping (docs/path-matrix.md). A later feature adds its rows here; a door that cannot offer
 * one says why in its `lacks`.
 */
import {
  cancelledMessage,
  memoryLimitMessage,
  moduleNotFoundMessage,
  NOT_A_FUNCTION_HINT,
  OUTBOUND_DISABLED_MESSAGE,
  STATEMENTS_HINT,
} from '@supolka/codemode-protocol';
import { CONSOLE_CAPTURE_MESSAGE } from '../../../executor/src/sandbox/console.ts';
import { LOST_VALUE_TEXTS } from '../../../executor/src/sandbox/lost-values.ts';
import { type Behaviour, bodyPosition } from './door.ts';
import { DURABLE_ROWS } from './durable-rows.ts';
import { PACKAGE_ROWS } from './package-rows.ts';

const timedOut = (ms: number) =>
  `Execution timed out at its ${ms} ms bound. Do less work per run and return the part that is already finished.`;

/** What each module kind exports, through a static and through a dynamic import alike. */
const MODULE_VALUES = {
  esm: 'a string entry',
  js: 'js',
  cjs: { cjs: 'required' },
  data: { json: true },
  text: 'text',
  bytes: [1, 2, 3],
  typed: 'erased',
};

export const TOOL_ROWS: Behaviour[] = [
  {
    name: 'a tool call, spread convention',
    providers: ['math'],
    body: 'return await math.add(2, 3);',
    needs: ['spread-tools'],
    expected: { result: 5, logs: [] },
  },
  {
    name: 'a tool call, single-object convention',
    providers: ['store'],
    body: "return await store.describe({ key: 'a', value: [1, 2] });",
    needs: ['single-object'],
    expected: { result: { got: { key: 'a', value: [1, 2] } }, logs: [] },
  },
  {
    // Past 512 characters a call's texts cross into the host in a copied array, not as strings.
    name: 'a tool call with long arguments, two-byte characters and surrogate pairs among them',
    providers: ['store'],
    body: "const value = 'a€😀'.repeat(20000);\nconst { got } = await store.describe({ key: 'long', value });\nreturn { same: got.value === value, length: got.value.length };",
    needs: ['single-object'],
    expected: { result: { same: true, length: 80000 }, logs: [] },
  },
  {
    name: "a prelude's helper beside the tools",
    providers: ['helpers'],
    body: 'return await helpers.double();',
    needs: ['prelude'],
    expected: { result: 42, logs: [] },
  },
  {
    name: 'a proxySource namespace',
    providers: ['custom'],
    body: "return custom.hello('matrix');",
    needs: ['proxy-source'],
    expected: { result: 'hello matrix from proxySource', logs: [] },
  },
  {
    name: 'binary values to a tool and back',
    providers: ['math'],
    body: 'const doubled = await math.twice(new Uint8Array([1, 2, 3]));\nreturn { bytes: doubled instanceof Uint8Array, values: [...doubled] };',
    needs: ['spread-tools'],
    expected: { result: { bytes: true, values: [2, 4, 6] }, logs: [] },
  },
  {
    name: 'a failing tool',
    providers: ['store'],
    body: "console.log('calling');\nawait store.fail({});\nreturn 'not reached';",
    needs: ['single-object'],
    // errorAt is the column of the tool's name, on the body's line 2 (one more inside an arrow).
    expected: (door) => ({
      error: 'the tool failed on purpose',
      errorKind: 'tool-failed',
      errorProvider: 'store',
      errorTool: 'fail',
      errorAt: bodyPosition(door, 2, 13),
      logs: ['calling'],
    }),
  },
  {
    name: 'an unknown tool',
    providers: ['store'],
    body: 'return await store.nope({});',
    needs: ['single-object'],
    expected: (door) => ({
      error: 'Tool store.nope does not exist: no provider serves it.',
      errorKind: 'tool-not-found',
      errorProvider: 'store',
      errorTool: 'nope',
      errorAt: bodyPosition(door, 1, 20),
      logs: [],
    }),
  },
  {
    name: 'which call of three in Promise.all failed',
    providers: ['store'],
    body: `const [first, second, third] = await Promise.all([
  store.describe({ key: 'a', value: 1 }),
  store.fail({ key: 'b' }),
  store.describe({ key: 'c', value: 3 }),
]);
return [first, second, third];`,
    needs: ['single-object'],
    expected: (door) => ({
      error: 'the tool failed on purpose',
      errorKind: 'tool-failed',
      errorProvider: 'store',
      errorTool: 'fail',
      errorAt: bodyPosition(door, 3, 9),
      logs: [],
    }),
  },
  {
    name: 'a failing tool the program caught and replaced names no tool',
    providers: ['store'],
    body: "await store.fail({}).catch((error) => {\n  throw new Error('wrapped: ' + error.message);\n});",
    needs: ['single-object'],
    expected: { error: 'wrapped: the tool failed on purpose', errorKind: 'thrown', logs: [] },
  },
];

export const FETCH_ROWS: Behaviour[] = [
  {
    name: 'proxied fetch',
    outbound: 'proxied',
    body: "const response = await fetch('https://api.test/page', { method: 'POST', body: 'hi' });\nreturn [response.status, await response.text()];",
    needs: ['proxied-fetch'],
    expected: { result: [200, 'proxied POST https://api.test/page hi'], logs: [] },
  },
  {
    name: 'native fetch to a loopback server, opted in',
    outbound: 'native',
    body: "const response = await fetch('__LOOPBACK__/page?q=1');\nreturn [response.status, await response.text()];",
    needs: ['native-fetch', 'loopback-opt-in'],
    expected: { result: [200, 'native GET /page?q=1'], logs: [] },
  },
  {
    name: 'native fetch to a loopback server, not opted in',
    outbound: 'native',
    loopback: 'refused',
    body: "return await fetch('__LOOPBACK__/page').then(() => 'reached', (error) => error.name + ': ' + error.message);",
    needs: ['native-fetch'],
    expected: {
      result:
        "TypeError: Outbound requests to loopback addresses are refused (127.0.0.1); the executor's allowLoopback option permits them.",
      logs: [],
    },
  },
  {
    name: 'disabled fetch',
    outbound: 'disabled',
    body: "return await fetch('https://api.test/').then(() => 'reached', (error) => error.name + ': ' + error.message);",
    expected: { result: `TypeError: ${OUTBOUND_DISABLED_MESSAGE}`, logs: [] },
  },
  {
    name: 'disabled fetch, not caught',
    outbound: 'disabled',
    body: "await fetch('https://api.test/');",
    expected: { error: OUTBOUND_DISABLED_MESSAGE, errorKind: 'outbound-disabled', logs: [] },
  },
];

export const RUNTIME_ROWS: Behaviour[] = [
  {
    name: 'a program that throws',
    body: "console.warn('about to throw');\nthrow new RangeError('out of range');",
    expected: { error: 'out of range', errorKind: 'thrown', logs: ['[warn] about to throw'] },
  },
  {
    name: 'timers, in the order they expire',
    body: `const order = [];
await new Promise((done) => {
  setTimeout(() => { order.push('late'); done(); }, 60);
  setTimeout(() => order.push('early'), 0);
  const interval = setInterval(() => { order.push('tick'); clearInterval(interval); }, 1);
  queueMicrotask(() => order.push('microtask'));
});
return order;`,
    expected: { result: ['microtask', 'early', 'tick', 'late'], logs: [] },
  },
  {
    name: 'console, every level',
    body: "console.log('one', 2);\nconsole.warn('careful');\nconsole.error('bad');\nreturn 'logged';",
    expected: { result: 'logged', logs: ['one 2', '[warn] careful', '[error] bad'] },
  },
  {
    name: 'console past its capture bound',
    body: "const line = 'x'.repeat(1000);\nfor (let i = 0; i < 2000; i++) console.log(line);\nreturn 'wrote';",
    needs: ['bounded-console'],
    // 1 MiB of charged cost holds 1021 lines of 1000 characters (each costs 1002 + LINE_COST).
    expected: {
      result: 'wrote',
      logs: [...Array.from({ length: 1021 }, () => 'x'.repeat(1000)), `[warn] ${CONSOLE_CAPTURE_MESSAGE}`],
    },
    view: ({ logs, ...rest }) => ({ ...rest, lines: logs.length, last: logs.at(-1), first: logs[0] }),
  },
  {
    name: 'console streamed while the run goes',
    providers: ['probe'],
    body: "console.log('streamed line');\nreturn await probe.streamed('streamed line');",
    needs: ['stream-console'],
    expected: { result: true, logs: ['streamed line'] },
  },
  {
    name: 'every module kind, static and dynamic import',
    imports: `import { esm } from './esm.js';
import js from './js.js';
import cjs from './cjs.js';
import data from './data.json';
import text from './note.txt';
import bytes from './bytes.bin';
import { typed } from './typed.ts';`,
    // The late/ modules are reached only through import(), so each kind is compiled by the loader.
    body: `const late = await Promise.all(
  ['esm.js', 'js.js', 'cjs.js', 'data.json', 'note.txt', 'bytes.bin', 'typed.ts'].map((name) => import('./late/' + name)),
);
const [lateEsm, lateJs, lateCjs, lateData, lateText, lateBytes, lateTyped] = late;
return {
  static: { esm, js, cjs, data, text, bytes: [...new Uint8Array(bytes)], typed },
  dynamic: {
    esm: lateEsm.esm,
    js: lateJs.default,
    cjs: lateCjs.default,
    data: lateData.default,
    text: lateText.default,
    bytes: [...new Uint8Array(lateBytes.default)],
    typed: lateTyped.typed,
  },
};`,
    modules: Object.fromEntries(
      ['./', './late/'].flatMap((directory) => [
        [`${directory}esm.js`, "export const esm = 'a string entry';"],
        [`${directory}js.js`, { js: "export default 'js';" }],
        [`${directory}cjs.js`, { cjs: "module.exports = { cjs: require('./dep.cjs').value };" }],
        [`${directory}dep.cjs`, { cjs: "exports.value = 'required';" }],
        [`${directory}data.json`, { json: { json: true } }],
        [`${directory}note.txt`, { text: 'text' }],
        [`${directory}bytes.bin`, { data: 'AQID' }],
        [`${directory}typed.ts`, "export const typed: string = 'erased';"],
      ]),
    ),
    needs: ['modules'],
    expected: {
      result: {
        static: MODULE_VALUES,
        dynamic: MODULE_VALUES,
      },
      logs: [],
    },
  },
  {
    name: 'a module the map does not have',
    imports: "import { missing } from './missing.js';",
    body: 'return missing;',
    modules: { './present.js': 'export const present = true;' },
    needs: ['modules'],
    expected: {
      error: moduleNotFoundMessage('./missing.js', 'executor.js'),
      errorKind: 'module-not-found',
      logs: [],
    },
  },
  {
    name: 'import() of a module the map does not have',
    body: "return (await import('./missing.js')).missing;",
    modules: { './present.js': 'export const present = true;' },
    needs: ['modules'],
    expected: {
      error: moduleNotFoundMessage('./missing.js', 'executor.js'),
      errorKind: 'module-not-found',
      logs: [],
    },
  },
  {
    name: 'import() of modules that throw, settled in the order asked',
    body: `const order = [];
await Promise.all([
  import('./throws.js').catch((e) => order.push(e.constructor.name + ': ' + e.message)),
  import('./present.js').then((m) => order.push('present ' + m.present)),
  import('./missing.js').catch((e) => order.push(e.message.slice(0, 19))),
]);
return order;`,
    modules: {
      './present.js': 'export const present = true;',
      './throws.js': "throw new TypeError('at load');",
    },
    needs: ['modules'],
    expected: { result: ['TypeError: at load', 'present true', 'Cannot find module '], logs: [] },
  },
  {
    name: 'crypto.subtle',
    body: `const hex = (buffer) => [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode('matrix'));
const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
const data = new TextEncoder().encode('signed');
const signature = await crypto.subtle.sign('HMAC', key, data);
return { digest: hex(digest), verified: await crypto.subtle.verify('HMAC', key, signature, data), extractable: key.extractable };`,
    expected: {
      result: {
        digest: '6e00cd562cc2d88e238dfb81d9439de7ec843ee9d0c9879d549cb1436786f975',
        verified: true,
        extractable: false,
      },
      logs: [],
    },
  },
  {
    name: 'TypeScript',
    body: `interface Point { x: number; y: number }
const point: Point = { x: 1, y: 2 };
const sum = <T extends Point>(p: T): number => p.x + p.y;
return sum(point satisfies Point) as number;`,
    expected: { result: 3, logs: [] },
  },
  {
    // Issue 26 item 6: a door that takes statements reads an import, types and a top-level return
    // together (each alone always read); an arrow door gets the same body inside its arrow.
    name: 'TypeScript statements after an import, with a return',
    imports: "import data from './data.json';",
    body: 'const n: number = data.n;\nreturn n * 2;',
    modules: { './data.json': { json: { n: 21 } } },
    needs: ['modules'],
    expected: { result: 42, logs: [] },
  },
];

export const BOUND_ROWS: Behaviour[] = [
  {
    name: 'nesting: a tool runs another program through the same door',
    providers: ['nest'],
    body: "return await nest.run('return await math.add(20, 22);');",
    needs: ['nesting'],
    expected: { result: 42, logs: [] },
  },
  {
    name: 'cancellation while a tool call is pending',
    providers: ['math'],
    body: "console.log('before the hang');\nawait math.hang();\nreturn 'not reached';",
    cancel: true,
    needs: ['cancel', 'spread-tools'],
    expected: ({ cancellation }) => ({
      error: cancelledMessage(cancellation?.reason),
      code: 'CANCELLED',
      logs: cancellation?.keepsLogs ? ['before the hang'] : [],
    }),
  },
  {
    name: 'timeout',
    timeout: 1000,
    body: "console.log('waiting');\nawait new Promise(() => {});",
    expected: { error: timedOut(1000), code: 'TIMEOUT', logs: ['waiting'] },
  },
  {
    name: 'memory limit',
    memoryLimit: 64,
    body: 'const kept = [];\nfor (;;) kept.push(new Array(1_000_000).fill(1));',
    expected: { error: memoryLimitMessage(64), code: 'MEMORY_LIMIT', logs: [] },
  },
];

export const RETAINED_ROWS: Behaviour[] = [
  {
    name: 'a retained handler using timers and crypto over several invocations',
    body: `let hits = 0;
return {
  fetch: async (request) => {
    hits++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(new URL(request.url).pathname));
    return new Response(hits + ' ' + new Uint8Array(digest)[0]);
  },
};`,
    invoke: ['/a', '/b', '/a'],
    needs: ['retain'],
    expected: { logs: [], responses: ['200 1 106', '200 2 152', '200 3 106'] },
  },
  {
    name: 'a retained handler calling a tool over several invocations',
    providers: ['math'],
    body: `let total = 0;
return {
  fetch: async (request) => {
    total = await math.add(total, Number(new URL(request.url).searchParams.get('n')));
    return new Response(String(total));
  },
};`,
    invoke: ['/?n=1', '/?n=2', '/?n=3'],
    needs: ['retain', 'retained-host-calls', 'spread-tools'],
    expected: { logs: [], responses: ['200 1', '200 3', '200 6'] },
  },
  {
    name: 'a retained handler with proxied fetch over several invocations',
    outbound: 'proxied',
    body: `return async (request) => {
  const response = await fetch('https://api.test' + new URL(request.url).pathname);
  return new Response(await response.text(), { status: 201 });
};`,
    invoke: ['/a', '/b'],
    needs: ['retain', 'retained-host-calls', 'proxied-fetch'],
    expected: {
      logs: [],
      responses: ['201 proxied GET https://api.test/a', '201 proxied GET https://api.test/b'],
    },
  },
  {
    name: 'a retained handler whose tool runs another program',
    providers: ['nest'],
    body: `let calls = 0;
return async () => {
  const sum = await nest.run('return await math.add(' + ++calls + ', 40);');
  return new Response(String(sum));
};`,
    invoke: ['/', '/'],
    needs: ['retain', 'retained-host-calls', 'nesting'],
    expected: { logs: [], responses: ['200 41', '200 42'] },
  },
];

/**
 * The wall-clock bound (issue 22, item 3): a tool that never answers holds no run clock, so only
 * the bound around the run ends it. Each row names its bound in `wallClockLimit`, given where an
 * instance is built, so each door keeps one instance per value, as it does for the loopback
 * opt-in: IsolateExecutor's `wallClockLimit` option (both forms), the server's `wallClockLimit`,
 * `run --wall-clock-limit` and `mcp --wall-clock-limit`. The texts differ by door (the executor
 * names the pending call, the server its own bound), so a row compares the code and the bound.
 */
export const WALL_CLOCK_ROWS: Behaviour[] = [
  {
    name: 'a tool that never answers meets the wall-clock bound',
    providers: ['store'],
    wallClockLimit: 2000,
    body: "await store.hang({});\nreturn 'not reached';",
    needs: ['wall-clock', 'single-object'],
    expected: { error: 'wallClockLimit of 2000 ms', code: 'TIMEOUT', logs: [] },
    view: (outcome) => ({
      code: outcome.code,
      bound: /wallClockLimit of \d+ ms/.exec(outcome.error ?? '')?.[0],
    }),
  },
];

/**
 * What the envelope says beside an error and about the values it carries (issue 26 items 4, 5 and
 * 9): a thrown object's JSON, the object form's hint for code that is no arrow (its rows go
 * unwrapped, so a door that takes statements runs what an arrow door refuses), and the notes of
 * values serialization changed.
 */
export const DETAIL_ROWS: Behaviour[] = [
  {
    name: 'a thrown plain object carries its JSON',
    body: "throw { status: 404, reason: 'gone' };",
    expected: {
      error: '[object Object]',
      errorKind: 'thrown',
      errorJson: '{"status":404,"reason":"gone"}',
      logs: [],
    },
  },
  {
    name: 'statements, where the object form expects an arrow',
    unwrapped: true,
    body: 'const answer = 20;\nreturn answer + 22;',
    expected: ({ takes }) =>
      takes === 'statements'
        ? { result: 42, logs: [] }
        : {
            error: "Unexpected token 'const' [executor.js:1:1]",
            errorKind: 'syntax',
            hint: STATEMENTS_HINT,
            logs: [],
          },
  },
  {
    name: 'an expression that is no function, where the object form expects an arrow',
    unwrapped: true,
    body: '1 + 1',
    expected: ({ takes }) =>
      takes === 'statements'
        ? { result: 2, logs: [] }
        : { error: '2 is not a function', errorKind: 'thrown', hint: NOT_A_FUNCTION_HINT, logs: [] },
  },
  {
    name: 'a result holding a Map is noted',
    body: "return { byId: new Map([[1, 'a']]), count: 1 };",
    expected: { result: { byId: {}, count: 1 }, notes: [`result.byId: ${LOST_VALUE_TEXTS.map}`], logs: [] },
  },
  {
    name: 'a result that forgot an await is noted',
    body: "const load = async () => 'loaded';\nreturn { data: load() };",
    expected: { result: { data: {} }, notes: [`result.data: ${LOST_VALUE_TEXTS.promise}`], logs: [] },
  },
  {
    // The spread convention, whose paths every door with it names alike: the Code Mode form hands
    // every tool the program's argument list, so a single object is its args[0] there.
    name: 'functions passed to a tool are noted',
    providers: ['math'],
    body: "return await math.echo('f', { onPage: (page) => page }, [() => 1]);",
    needs: ['spread-tools'],
    expected: {
      result: ['f', {}, [null]],
      notes: [
        `math.echo args[1].onPage: ${LOST_VALUE_TEXTS.functionDropped}`,
        `math.echo args[2][0]: ${LOST_VALUE_TEXTS.functionNull}`,
      ],
      logs: [],
    },
  },
];

/** The same lines under the protocol's rule (the default) and workerd's format (consoleFormat 'inspect'). */
const CONSOLE_FORMAT_BODY = `console.log('x', { a: 1, list: [1, 'two'] }, new Map([[1, 2]]));
console.warn('%s is %d', 'Ada', 36);
console.error(new Set(['s']), null, undefined);
return 'logged';`;

export const CONSOLE_FORMAT_ROWS: Behaviour[] = [
  {
    name: 'console objects under the default rule',
    body: CONSOLE_FORMAT_BODY,
    expected: {
      result: 'logged',
      logs: [
        'x [object Object] [object Map]',
        '[warn] %s is %d Ada 36',
        '[error] [object Set] null undefined',
      ],
    },
  },
  {
    name: "console objects in workerd's format",
    body: CONSOLE_FORMAT_BODY,
    consoleFormat: 'inspect',
    expected: {
      result: 'logged',
      logs: [
        "x { a: 1, list: [ 1, 'two' ] } Map(1) { 1 => 2 }",
        '[warn] Ada is 36',
        "[error] Set(1) { 's' } null undefined",
      ],
    },
  },
];

export const BEHAVIOURS: readonly Behaviour[] = [
  ...TOOL_ROWS,
  ...DETAIL_ROWS,
  ...FETCH_ROWS,
  ...RUNTIME_ROWS,
  ...CONSOLE_FORMAT_ROWS,
  ...BOUND_ROWS,
  ...RETAINED_ROWS,
  ...WALL_CLOCK_ROWS,
  ...DURABLE_ROWS,
  ...PACKAGE_ROWS,
];
