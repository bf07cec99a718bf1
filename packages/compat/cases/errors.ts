/** Thrown errors: what the envelope's error says for each kind of throw, and error names and messages. */
import { defineArea } from '../src/case.ts';

export default defineArea('errors', [
  { name: 'throw-error', quick: true, code: `async () => { throw new Error('Something went wrong'); }` },
  {
    name: 'throw-after-await',
    quick: true,
    tools: ['math'],
    code: `async () => { const n = await math.add(1, 1); if (n === 2) throw new RangeError('n must not be ' + n); return n; }`,
  },
  { name: 'null-property-access', code: `async () => { const user = null; return user.name; }` },
  { name: 'undefined-variable', code: `async () => { return notDefinedAnywhere + 1; }` },
  { name: 'not-a-function', code: `async () => { const api = { list: [] }; return api.list(); }` },
  { name: 'throw-string', code: `async () => { throw 'plain string failure'; }` },
  { name: 'throw-object', code: `async () => { throw { code: 42, reason: 'custom object' }; }` },
  {
    name: 'throw-null-and-undefined',
    code: `async () => { const which = [null, undefined][1]; throw which; }`,
  },
  {
    name: 'custom-error-class',
    code: `async () => {
  class ValidationError extends Error { constructor(field) { super('Invalid field: ' + field); this.name = 'ValidationError'; this.field = field; } }
  try { throw new ValidationError('email'); } catch (e) { return { name: e.name, message: e.message, field: e.field, string: String(e), isError: e instanceof Error }; }
}`,
  },
  {
    name: 'aggregate-error',
    code: `async () => {
  try { await Promise.any([Promise.reject(new Error('a')), Promise.reject(new TypeError('b'))]); }
  catch (e) { return { name: e.name, message: e.message, errors: e.errors.map((x) => x.name + ':' + x.message) }; }
}`,
  },
  {
    name: 'error-cause',
    tools: ['github'],
    code: `async () => {
  try { await github.getIssue({ number: 999 }); }
  catch (cause) { const wrapped = new Error('Could not load issue', { cause }); return { message: wrapped.message, cause: wrapped.cause.message, causeName: wrapped.cause.name }; }
}`,
  },
  {
    name: 'uncaught-tool-error',
    tools: ['github'],
    code: `async () => { const issue = await github.getIssue({ number: 404 }); return issue.title; }`,
  },
  { name: 'json-parse-error', code: `async () => JSON.parse('{"unterminated": ')` },
  {
    name: 'range-errors',
    code: `async () => [() => new Array(-1), () => (1).toFixed(200), () => 'x'.repeat(-1), () => new ArrayBuffer(-1)].map((f) => { try { f(); return 'ok'; } catch (e) { return e.name + ': ' + e.message; } })`,
  },
  {
    name: 'stack-first-line',
    code: `async () => {
  const e = new TypeError('inspect me');
  return { first: e.stack.split('\\n')[0], hasFrames: e.stack.includes('\\n    at '), captureStackTrace: typeof Error.captureStackTrace, limit: Error.stackTraceLimit };
}`,
  },
  { name: 'bigint-result', code: `async () => ({ total: 10n })` },
  {
    name: 'circular-result',
    code: `async () => { const node = { name: 'root' }; node.self = node; return node; }`,
  },
  { name: 'function-result', code: `async () => () => 'a function'` },
  {
    name: 'eval-refused',
    code: `async () => [() => eval('1 + 1'), () => new Function('return 1')(), () => (0, eval)('2')].map((f) => { try { return f(); } catch (e) { return e.name + ': ' + e.message; } })`,
  },
  {
    name: 'wasm-from-bytes-refused',
    code: `async () => {
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
  const out = { valid: WebAssembly.validate(bytes) };
  try { new WebAssembly.Module(bytes); out.module = 'compiled'; } catch (e) { out.module = e.name + ': ' + e.message; }
  try { await WebAssembly.instantiate(bytes); out.instantiate = 'ok'; } catch (e) { out.instantiate = e.name + ': ' + e.message; }
  return out;
}`,
  },
  {
    name: 'error-with-overridden-message',
    code: `async () => { const e = new Error('original'); e.message = 'changed later'; throw e; }`,
  },
  {
    name: 'dom-exception-thrown',
    code: `async () => { throw new DOMException('Not allowed here', 'NotAllowedError'); }`,
  },
]);
