/** Headers: case-insensitive access, combining, set-cookie, validation, iteration order. */
import { defineArea } from '../src/case.ts';

export default defineArea('headers', [
  {
    name: 'basic-access',
    quick: true,
    code: `async () => {
  const h = new Headers();
  h.set('Content-Type', 'application/json');
  h.append('X-Trace', 'a');
  h.append('x-trace', 'b');
  return { type: h.get('content-type'), trace: h.get('X-TRACE'), has: h.has('x-Trace'), missing: h.get('nope'), hasMissing: h.has('nope') };
}`,
  },
  {
    name: 'iteration-sorted-and-combined',
    quick: true,
    code: `async () => {
  const h = new Headers([['Zeta', '1'], ['alpha', '2'], ['Mid', '3'], ['alpha', '4']]);
  return { entries: [...h], keys: [...h.keys()], values: [...h.values()] };
}`,
  },
  {
    name: 'set-cookie',
    code: `async () => {
  const h = new Headers();
  h.append('Set-Cookie', 'a=1; Path=/');
  h.append('set-cookie', 'b=2; HttpOnly');
  return { get: h.get('set-cookie'), list: h.getSetCookie(), entries: [...h] };
}`,
  },
  {
    name: 'invalid-name',
    code: `async () => {
  try { new Headers({ 'bad name': 'x' }); return 'accepted'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'invalid-value',
    code: `async () => {
  const out = [];
  for (const value of ['line\\nbreak', 'nul\\u0000', 'ok\\ttab', 'é']) {
    try { out.push(JSON.stringify(new Headers({ a: value }).get('a'))); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
  {
    name: 'init-forms',
    code: `async () => {
  const fromObject = new Headers({ Accept: 'text/html', 'X-N': 1 });
  const fromPairs = new Headers([['accept', 'a'], ['accept', 'b']]);
  const fromHeaders = new Headers(fromObject);
  fromHeaders.set('accept', 'changed');
  return { fromObject: [...fromObject], fromPairs: [...fromPairs], copy: [...fromHeaders], originalUntouched: fromObject.get('accept') };
}`,
  },
  {
    name: 'whitespace-trimmed',
    code: `async () => {
  const h = new Headers({ a: '  padded value \\t ' });
  h.append('b', '\\r\\n leading');
  return [h.get('a'), h.get('b')].map((v) => JSON.stringify(v));
}`,
  },
  {
    name: 'for-each',
    code: `async () => {
  const h = new Headers({ b: '2', a: '1', 'set-cookie': 'x=1' });
  h.append('set-cookie', 'y=2');
  const seen = [];
  h.forEach((value, key, self) => seen.push(key + '=' + value + (self === h ? '' : '!')));
  return seen;
}`,
  },
  {
    name: 'from-entries',
    code: `async () => Object.fromEntries(new Headers({ 'Content-Type': 'text/plain', Authorization: 'Bearer abc', 'x-a': '1' }))`,
  },
  {
    name: 'response-headers-from-fetch',
    code: `async () => {
  const response = await fetch('http://loopback.test/headers');
  const h = response.headers;
  return { type: h.get('content-type'), custom: h.get('x-custom'), multi: h.get('x-multi'), cookies: h.getSetCookie(), cache: h.get('cache-control') };
}`,
  },
  {
    name: 'bad-pair-length',
    code: `async () => {
  const out = [];
  for (const init of [[['a']], [['a', 'b', 'c']], ['ab'], 42]) {
    try { out.push([...new Headers(init)]); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
  {
    name: 'delete-and-mutate-while-iterating',
    code: `async () => {
  const h = new Headers({ a: '1', b: '2', c: '3' });
  const seen = [];
  for (const [key] of h) { seen.push(key); if (key === 'a') h.delete('b'); }
  return { seen, left: [...h.keys()] };
}`,
  },
  {
    name: 'immutable-headers',
    code: `async () => {
  const response = Response.error();
  try { response.headers.set('x', '1'); return 'mutated'; } catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'auth-header-for-tool',
    tools: ['github'],
    code: `async () => {
  const headers = new Headers({ Accept: 'application/vnd.github+json' });
  headers.set('Authorization', 'Bearer ' + 'token-123');
  const issue = await github.getIssue({ number: 1 });
  headers.set('X-Issue', String(issue.number));
  return Object.fromEntries(headers);
}`,
  },
  {
    name: 'missing-arguments',
    code: `async () => {
  const h = new Headers();
  const out = [];
  for (const f of [() => h.append('a'), () => h.get(), () => h.set()]) {
    try { out.push(String(f())); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
  {
    name: 'observable-shape',
    code: `async () => {
  const h = new Headers({ a: '1' });
  return { tag: Object.prototype.toString.call(h), own: Object.getOwnPropertyNames(h), symbols: Object.getOwnPropertySymbols(h).length,
    iterator: typeof h[Symbol.iterator], entriesSame: Headers.prototype.entries === Headers.prototype[Symbol.iterator] };
}`,
  },
  {
    name: 'invalid-name-lookups',
    code: `async () => {
  const h = new Headers();
  const out = [];
  for (const f of [() => h.get('bad name'), () => h.has('bad name'), () => h.delete('bad name')]) {
    try { out.push(String(f())); } catch (e) { out.push(e.name + ': ' + e.message); }
  }
  return out;
}`,
  },
]);
