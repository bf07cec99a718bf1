/**
 * Hostile programs are the normal case for this product. Each test is a program written to break
 * the sandbox; each must come back as its own envelope, leave the host serving, and reach nothing
 * of the host.
 */
import { executionTimeoutMessage } from '@supolka/codemode-protocol';
import { moduleNotFoundMessage, timerCallbackMessage } from '@supolka/codemode-protocol/wire';
import { describe, expect, test } from 'vitest';
import { serve, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const tools = {
  providers: [{ name: 'tools' }],
  dispatch: serve({ tools: { data: () => ({ nested: { list: [1, 2] } }) } }),
};

/** The envelope of a program that threw `new TypeError('the real failure')` at `position`. */
const theRealFailureAt = (position: string) => ({
  result: undefined,
  error: 'the real failure',
  logs: [],
  errorKind: 'thrown',
  errorName: 'TypeError',
  errorStack: `    at ${position}`,
});

describe('tampering with built-ins before the host reads the result', () => {
  const tampering = `
JSON.stringify = () => '{"result":"forged by JSON.stringify"}';
JSON.parse = () => ({ result: 'forged by JSON.parse' });
Promise.race = () => new Promise(() => {});
Array.prototype[Symbol.iterator] = function* () { yield 'forged by the iterator' };
Array.prototype.push = () => { throw new Error('forged push') };
Object.defineProperty(Object.prototype, 'error', { get: () => 'forged error', configurable: true });
Object.defineProperty(Object.prototype, 'code', { value: 'TIMEOUT', configurable: true });
Object.defineProperty(Object.prototype, '__proto__x', { value: 1 });
Error.prototype.toString = () => 'forged toString';
String.prototype.charCodeAt = () => 0;
globalThis.Proxy = function () { throw new Error('forged Proxy') };
globalThis.Error = function () { return { message: 'forged Error' } };
`;

  test('from a module, which evaluates before the entry', async () => {
    const envelope = await sandbox.execute({
      ...tools,
      modules: { 'tamper.js': tampering },
      code: `import './tamper.js'
async () => ({ own: 'value', bytes: Uint8Array.of(7), fromTool: await tools.data() })`,
    });
    expect(envelope).toStrictEqual({
      result: { own: 'value', bytes: new Uint8Array([7]), fromTool: { nested: { list: [1, 2] } } },
      logs: [],
    });
  });

  test('from the program itself, including a throw that must still report', async () => {
    const envelope = await sandbox.execute({
      ...tools,
      code: `async () => { ${tampering}; await tools.data(); throw new TypeError('the real failure') }`,
    });
    // The replaced iterator once reached the run support's report (an array spread), which then
    // carried the iterator's values instead of the error's name and stack; the report spreads nothing.
    expect(envelope).toStrictEqual(theRealFailureAt('executor.js:14:29'));
  });

  test('an array iterator that throws does not keep the run support from reporting a throw', async () => {
    // The failure report once spread its details through the array iterator the program replaced:
    // the report threw, nothing delivered, and the run ended TIMEOUT instead of with its error.
    const envelope = await sandbox.execute({
      timeout: 2000,
      code: `async () => { Array.prototype[Symbol.iterator] = function () { throw new Error('no iterating') }; throw new TypeError('the real failure') }`,
    });
    expect(envelope).toStrictEqual(theRealFailureAt('executor.js:1:105'));
  });

  describe("isolated-vm's option names on Object.prototype", () => {
    // isolated-vm looks an option it does not find on an options object up the prototype chain, so
    // the runtime's and the sandbox's own crossings must hand it objects without one. Each planting
    // below once changed a crossing: inherited `arguments` handed the host references instead of
    // copies (import() failed on them, a timer never fired, getRandomValues filled zeros); a
    // `reference` getter for promise results hung every timer.
    const plantings = {
      'plain values': `for (const [key, value] of [['arguments', { reference: true }], ['timeout', 1], ['promise', true], ['copy', true]]) Object.prototype[key] = value;`,
      'getters that pick the result options': `for (const key of ['reference', 'externalCopy']) Object.defineProperty(Object.prototype, key, { get() { return Object.hasOwn(this, 'promise') }, configurable: true });`,
    };
    const uses = `
      const imported = (await import('./m.js')).default;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const random = crypto.getRandomValues(new Uint8Array(32));
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('abc')));
      const fetched = await (await fetch('https://example.com/a')).text();
      const fromTool = await tools.data();
      const form = await new Response(new URLSearchParams({ a: '1' })).text();
      return { imported, random: random.some((byte) => byte !== 0), digest: Array.from(digest.subarray(0, 4)), fetched, fromTool, form };`;
    for (const [name, planting] of Object.entries(plantings)) {
      test(`${name}: every crossing still works as written`, async () => {
        const envelope = await sandbox.execute({
          ...tools,
          timeout: 5000,
          modules: { 'm.js': 'export default "module"' },
          outbound: async (request) => ({
            status: 200,
            statusText: 'OK',
            headers: [],
            body: new TextEncoder().encode(`fetched ${request.url}`),
          }),
          code: `async () => { ${planting}
            try { ${uses} } finally { for (const key of ['arguments', 'timeout', 'promise', 'copy', 'reference', 'externalCopy']) delete Object.prototype[key]; } }`,
        });
        expect(envelope).toStrictEqual({
          result: {
            imported: 'module',
            random: true,
            digest: [0xba, 0x78, 0x16, 0xbf],
            fetched: 'fetched https://example.com/a',
            fromTool: { nested: { list: [1, 2] } },
            form: 'a=1',
          },
          logs: [],
        });
      });
    }
  });

  test('a then that never settles breaks only the program: its waits on the host end at the bound', async () => {
    // isolated-vm resolves a host promise inside the isolate through the observable then of a
    // nested promise, so the program's own replacement decides whether a timer's wait resumes
    // (docs/threat-model.md).
    const envelope = await sandbox.execute({
      timeout: 200,
      code: `async () => { Promise.prototype.then = function () { return this }; await new Promise((resolve) => setTimeout(resolve, 1)); return 'resumed' }`,
    });
    expect(envelope).toMatchObject({ code: 'TIMEOUT', error: executionTimeoutMessage(200) });
    expect(await sandbox.execute({ code: 'async () => "next run"' })).toStrictEqual({
      result: 'next run',
      logs: [],
    });
  });

  test('a replaced then does not reach a tool call: its answer arrives as a call, not a settlement', async () => {
    const envelope = await sandbox.execute({
      ...tools,
      timeout: 200,
      code: `async () => { Promise.prototype.then = function () { return this }; return await tools.data() }`,
    });
    expect(envelope).toStrictEqual({ result: { nested: { list: [1, 2] } }, logs: [] });
  });

  test('toJSON on Object.prototype changes the result value as JSON would, never the envelope', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { Object.prototype.toJSON = function () { return 'to json' }; return { a: 1 } }`,
    });
    expect(envelope).toStrictEqual({ result: 'to json', logs: [] });
  });

  test('an error whose message getter throws still reports', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { const e = new Error('x'); Object.defineProperty(e, 'message', { get() { throw e } }); throw e }`,
    });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'The program failed with a value that cannot be turned into text.',
      logs: [],
      errorKind: 'thrown',
      errorName: 'Error',
      errorStack: '    at executor.js:1:25',
    });
  });
});

describe('reaching for the host', () => {
  test('nothing of the host or of the handshake is left on the global object', async () => {
    const envelope = await sandbox.execute({
      code: `async () => [
  Object.getOwnPropertyNames(globalThis).filter((name) => name.startsWith('__') && !['__proto__', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__'].includes(name)).sort(),
  typeof process, typeof require, typeof Buffer, typeof module, typeof global,
]`,
    });
    expect(envelope.result).toStrictEqual([
      ['__dispatch', '__resultJson', '__resultReady', '__sandboxImport', '__timeoutExpired'],
      'undefined',
      'undefined',
      'undefined',
      'undefined',
      'undefined',
    ]);
  });

  test('tool results are plain isolate data, and tool failures isolate errors without host frames', async () => {
    const envelope = await sandbox.execute({
      providers: [{ name: 'tools' }],
      dispatch: async (_provider, tool) => {
        if (tool === 'fail') throw new Error('host failure');
        return JSON.stringify({ result: { a: [1] } });
      },
      code: `async () => {
  const value = await tools.get();
  let failure;
  try { await tools.fail() } catch (e) { failure = e }
  return [
    Object.getPrototypeOf(value) === Object.prototype,
    Object.getPrototypeOf(value.a) === Array.prototype,
    failure.constructor === Error,
    /node:|\\/work\\/|isolated-vm/.test(failure.stack),
  ];
}`,
    });
    expect(envelope.result).toStrictEqual([true, true, true, false]);
  });

  test('stack-trace hooks see only frames of the isolate', async () => {
    const envelope = await sandbox.execute({
      ...tools,
      code: `async () => {
  const seen = [];
  Error.prepareStackTrace = (error, frames) => {
    for (const frame of frames) seen.push([String(frame.getFileName()), typeof frame.getThis(), typeof frame.getFunction()]);
    return 'hooked';
  };
  await tools.data();
  try { await tools.missing() } catch (e) { e.stack }
  new Error('probe').stack;
  return seen.every(([file]) => !/node:|\\/work\\//.test(file)) && seen.length > 0;
}`,
    });
    expect(envelope.result).toBe(true);
  });

  test('the handshake references are gone: the runtime cannot be re-bound', async () => {
    const envelope = await sandbox.execute({
      code: `async () => [typeof globalThis.__hostBindings, typeof globalThis.__runtimeInternals, typeof globalThis.__hostDispatch]`,
    });
    expect(envelope.result).toStrictEqual(['undefined', 'undefined', 'undefined']);
  });
});

describe('code generation and WebAssembly are refused, as workerd refuses them', () => {
  test('every route to code from strings throws workerd EvalError', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const routes = [
    () => eval('1 + 1'),
    () => (0, eval)('1 + 1'),
    () => new Function('return 1'),
    () => Function('return 1'),
    () => (() => {}).constructor('return 1'),
    () => Object.getPrototypeOf(async () => {}).constructor('return 1'),
    () => Object.getPrototypeOf(function* () {}).constructor('yield 1'),
    () => Object.getPrototypeOf(async function* () {}).constructor('yield 1'),
    () => Reflect.construct(Function, ['return 1']),
  ];
  return [routes.map((route) => { try { route(); return 'allowed' } catch (e) { return e.name + ': ' + e.message } }),
    eval(5), (() => {}) instanceof Function];
}`,
    });
    const refused = 'EvalError: Code generation from strings disallowed for this context';
    expect(envelope.result).toStrictEqual([Array(9).fill(refused), 5, true]);
  });

  // The replacements are made once, in the snapshot: each route a program can build to them is
  // tried, through functions made in the snapshot, in each isolate's preparation and by the program.
  test('every other route reaches the same refusal: calls, bindings, proxies, subclasses, other functions', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor;
  const AsyncGeneratorFunction = Object.getPrototypeOf(async function* () {}).constructor;
  const routes = [
    () => eval.call(undefined, '1'),
    () => Reflect.apply(eval, undefined, ['1']),
    () => globalThis.eval('1'),
    () => new AsyncFunction('return 1'),
    () => new (Object.getPrototypeOf(async function () {}).constructor)('return 1'),
    () => (async () => {}).constructor('return 1'),
    () => new GeneratorFunction('yield 1'),
    () => new AsyncGeneratorFunction('yield 1'),
    () => Reflect.construct(AsyncFunction, ['return 1']),
    () => Reflect.construct(Function, ['return 1'], AsyncFunction),
    () => Reflect.apply(Function, undefined, ['return 1']),
    () => Function.prototype.call.call(Function, undefined, 'return 1'),
    () => Function.bind(undefined, 'return 1')(),
    () => new (Function.bind(undefined, 'return 1'))(),
    () => new (AsyncFunction.bind(undefined, 'return 1'))(),
    () => (function () {}).bind(undefined).constructor('return 1'),
    () => new Proxy(Function, {})('return 1'),
    () => new (new Proxy(Function, {}))('return 1'),
    () => new (new Proxy(GeneratorFunction, {}))('yield 1'),
    () => { class Made extends Function { constructor() { super('return 1') } } return new Made() },
    () => { class Made extends AsyncGeneratorFunction { constructor() { super('yield 1') } } return new Made() },
    () => Object.getOwnPropertyDescriptor(Function.prototype, 'constructor').value('return 1'),
    () => (class {}).constructor('return 1'),
    () => console.log.constructor('return 1'),
    () => console.context().log.constructor('return 1'),
    () => fetch.constructor('return 1'),
    () => Function.prototype.toString.constructor('return 1'),
    () => Object.getOwnPropertyDescriptor(Function.prototype, 'caller').get.constructor('return 1'),
    () => Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get.constructor('return 1'),
    () => new Uint8Array(1).buffer.constructor.constructor('return 1'),
    () => WebAssembly.Memory.constructor('return 1'),
    () => WebAssembly.compile.constructor('return 1'),
  ];
  const outcome = (route) => { try { route(); return 'allowed' } catch (e) { return e.name + ': ' + e.message } };
  const strings = [() => setTimeout('globalThis.made = 1', 0), () => setInterval('globalThis.made = 1', 0)];
  let imported;
  try { await import('data:text/javascript,export default 1'); imported = 'allowed' } catch (e) { imported = e.message }
  return [routes.map(outcome), strings.map(outcome), imported, typeof globalThis.ShadowRealm];
}`,
    });
    const refused = 'EvalError: Code generation from strings disallowed for this context';
    expect(envelope.result).toStrictEqual([
      Array(32).fill(refused),
      [
        `TypeError: ${timerCallbackMessage('setTimeout')}`,
        `TypeError: ${timerCallbackMessage('setInterval')}`,
      ],
      moduleNotFoundMessage('data:text/javascript,export default 1', 'executor.js'),
      'undefined',
    ]);
  });

  test('the replacements read as the engine functions they replace, as in workerd', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const constructors = [Function, eval, Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(function* () {}).constructor, Object.getPrototypeOf(async function* () {}).constructor,
    WebAssembly.Module, WebAssembly.compile, WebAssembly.instantiate];
  return constructors.map((fn) => [String(fn), fn.length]);
}`,
    });
    expect(envelope.result).toStrictEqual(
      [
        'Function',
        'eval',
        'AsyncFunction',
        'GeneratorFunction',
        'AsyncGeneratorFunction',
        'Module',
        'compile',
        'instantiate',
      ].map((name) => [`function ${name}() { [native code] }`, 1]),
    );
  });

  test('WebAssembly from bytes is refused; validate still answers', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
  const out = [WebAssembly.validate(bytes)];
  try { new WebAssembly.Module(bytes) } catch (e) { out.push(e.name + ': ' + e.message) }
  try { Reflect.construct(WebAssembly.Module.prototype.constructor, [bytes]) } catch (e) { out.push(e.message) }
  for (const method of ['compile', 'instantiate']) {
    try { await WebAssembly[method](bytes) } catch (e) { out.push(e.message) }
  }
  out.push(typeof WebAssembly.compileStreaming);
  return out;
}`,
    });
    expect(envelope.result).toStrictEqual([
      true,
      'CompileError: WebAssembly.Module(): Wasm code generation disallowed by embedder',
      'WebAssembly.Module(): Wasm code generation disallowed by embedder',
      'WebAssembly.compile(): Wasm code generation disallowed by embedder',
      'WebAssembly.instantiate(): Wasm code generation disallowed by embedder',
      'undefined',
    ]);
  });
});

describe('exhausting the engine', () => {
  test('a stack overflow is an ordinary error', async () => {
    const envelope = await sandbox.execute({ code: 'async () => { const f = () => f(); f() }' });
    expect(envelope).toStrictEqual({
      result: undefined,
      error: 'Maximum call stack size exceeded',
      logs: [],
      errorKind: 'thrown',
      errorName: 'RangeError',
      // V8 keeps ten frames by default; all ten are the program's.
      errorStack: Array.from({ length: 10 }, () => '    at f (executor.js:1:31)').join('\n'),
    });
  });

  test('Atomics.wait on the isolate thread is ended by the bound', async () => {
    const envelope = await sandbox.execute({
      timeout: 100,
      grace: 100,
      code: 'async () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)',
    });
    expect(envelope).toMatchObject({ code: 'TIMEOUT', error: executionTimeoutMessage(100) });
  });

  test('a string that doubles without end ends as an error or at the memory limit', async () => {
    const envelope = await sandbox.execute({
      memoryLimit: 64,
      code: `async () => { let s = 'x'; for (;;) s += s }`,
    });
    expect(envelope.code === 'MEMORY_LIMIT' || /Invalid string length/.test(envelope.error ?? '')).toBe(true);
  });

  test('an ArrayBuffer past the memory limit is refused', async () => {
    const envelope = await sandbox.execute({
      memoryLimit: 32,
      code: 'async () => new ArrayBuffer(512 * 1024 * 1024).byteLength',
    });
    expect(envelope.result).toBeUndefined();
    expect(
      envelope.code === 'MEMORY_LIMIT' || /Array buffer allocation failed/.test(envelope.error ?? ''),
    ).toBe(true);
  });

  test('a microtask flood is ended by the bound', async () => {
    const envelope = await sandbox.execute({
      timeout: 100,
      grace: 100,
      code: 'async () => { const flood = () => queueMicrotask(flood); flood(); await new Promise(() => {}) }',
    });
    expect(envelope).toMatchObject({ code: 'TIMEOUT' });
  });

  test('a promise loop that never yields to the host is ended by the bound', async () => {
    const envelope = await sandbox.execute({
      timeout: 100,
      grace: 100,
      code: 'async () => { const spin = async () => { await null; return spin() }; return spin() }',
    });
    expect(envelope.code === 'TIMEOUT' || envelope.code === 'MEMORY_LIMIT').toBe(true);
  });

  test('a result nested past the stack is an error, not a crash', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { let v = []; for (let i = 0; i < 1e6; i++) v = [v]; return v }',
    });
    expect(envelope.error).toBe('Maximum call stack size exceeded');
  });

  test('after all of that the host still serves', async () => {
    expect(await sandbox.execute({ code: 'async () => "alive"' })).toStrictEqual({
      result: 'alive',
      logs: [],
    });
  });
});
