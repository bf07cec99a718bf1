/** atob and btoa: the forgiving base64 decode, Latin-1 encode, and their DOMExceptions. */
import { defineArea } from '../src/case.ts';

export default defineArea('base64', [
  { name: 'encode-ascii', quick: true, code: `async () => btoa('hello world')` },
  { name: 'decode-ascii', quick: true, code: `async () => atob('aGVsbG8gd29ybGQ=')` },
  {
    name: 'json-round-trip',
    code: `async () => {
  const payload = { user: 'ada', roles: ['admin', 'dev'], n: 42 };
  const encoded = btoa(JSON.stringify(payload));
  return { encoded, decoded: JSON.parse(atob(encoded)) };
}`,
  },
  {
    name: 'invalid-character',
    code: `async () => {
  try { atob('*'); return 'no error'; }
  catch (e) { return { name: e.name, code: e.code, message: e.message, isDOMException: e instanceof DOMException, isError: e instanceof Error }; }
}`,
  },
  {
    name: 'btoa-outside-latin1',
    code: `async () => {
  try { btoa('héllo ✓'); return 'no error'; }
  catch (e) { return { name: e.name, code: e.code, message: e.message }; }
}`,
  },
  {
    name: 'utf8-via-text-encoder',
    code: `async () => {
  const bytes = new TextEncoder().encode('héllo ✓');
  const encoded = btoa(String.fromCharCode(...bytes));
  const decoded = new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)));
  return { encoded, decoded };
}`,
  },
  {
    name: 'whitespace-tolerated',
    code: `async () => [' aGk= ', 'aG\\nk=', 'a G k =', '\\taGk\\f='].map((s) => atob(s))`,
  },
  { name: 'missing-padding', code: `async () => [atob('aGk'), atob('aA'), atob('YWJj'), atob('')]` },
  {
    name: 'bad-lengths-and-padding',
    code: `async () => ['abcde', '=', 'ab=c', 'a===', 'aGk=='].map((s) => {
  try { return s + ' -> ' + JSON.stringify(atob(s)); } catch (e) { return s + ' -> ' + e.name; }
})`,
  },
  {
    name: 'coercions',
    code: `async () => ({ number: btoa(123), nul: btoa(null), undef: btoa(undefined), bool: btoa(true), decodeNumber: atob(1234), decodeNull: atob(null) })`,
  },
  {
    name: 'object-arguments',
    code: `async () => ({ array: btoa(['a', 'b']), object: btoa({ toString() { return 'obj'; } }), decodedArray: atob(['aGk=']) })`,
  },
  {
    name: 'base64url-token',
    code: `async () => {
  const raw = String.fromCharCode(251, 255, 191, 62, 63);
  const b64 = btoa(raw);
  const url = b64.replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const back = atob(url.replace(/-/g, '+').replace(/_/g, '/'));
  return { b64, url, same: back === raw };
}`,
  },
  {
    name: 'basic-auth-header',
    code: `async () => {
  const headerValue = 'Basic ' + btoa('api-user:s3cr3t!');
  const [scheme, encoded] = headerValue.split(' ');
  const [user, pass] = atob(encoded).split(':');
  return { headerValue, scheme, user, pass };
}`,
  },
  {
    name: 'decode-to-bytes',
    code: `async () => Array.from(atob('AAEC/w=='), (c) => c.charCodeAt(0))`,
  },
  {
    name: 'jwt-payload',
    code: `async () => {
  const token = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
  const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))));
  return { header, payload };
}`,
  },
  {
    name: 'large-round-trip',
    code: `async () => {
  let s = '';
  for (let i = 0; i < 3000; i++) s += String.fromCharCode(i % 256);
  const encoded = btoa(s);
  return { length: encoded.length, head: encoded.slice(0, 24), tail: encoded.slice(-8), same: atob(encoded) === s };
}`,
  },
  {
    name: 'observable-shape',
    code: `async () => ({ atob: typeof atob, btoa: typeof btoa, atobName: atob.name, btoaName: btoa.name, string: String(atob).includes('[native code]') })`,
  },
  {
    name: 'encode-tool-result',
    tools: ['github'],
    code: `async () => {
  const issue = await github.getIssue({ number: 2 });
  const encoded = btoa(JSON.stringify({ n: issue.number, t: issue.title }));
  return { encoded, back: JSON.parse(atob(encoded)).t };
}`,
  },
]);
