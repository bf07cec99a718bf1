/**
 * The runtime's hardening rule, checked from the outside: the WPT tables and the operations the
 * runtime tests exercise run again, in real isolates, after the program replaced the methods of the
 * common built-ins with traps (prototype-traps.ts), and no trap may fire from runtime code. The lint
 * rule (packages/runtime/lint/primordials-rule.ts) checks the same promise in the sources.
 *
 * The libraries the runtime bundles (whatwg-url's parser, tr46 and punycode, web-streams-polyfill)
 * are not the runtime's own code and call built-ins freely: THIRD_PARTY names each of their
 * functions that a trap saw, and the last test fails when one no longer fires, so the list only
 * shrinks. A trap fired by any other runtime function fails the test that ran it.
 */
import { expect, test } from 'vitest';
import type { OutboundFunction } from '../../src/sandbox/fetch.ts';
import { useSandbox } from '../helpers.ts';
import { type Fired, TRAPS_SOURCE } from './prototype-traps.ts';
import { AREAS } from './wpt/areas.ts';
import { HARNESS_SOURCE, judge, readExpectations, type SubtestResult } from './wpt/harness.ts';

const sandbox = useSandbox();
const expectations = readExpectations();

/** Functions of a runtime piece, as the traps name them. */
const inPiece = (...names: string[]) => names.map((name) => `${name} (in a piece)`);

/**
 * The bundled libraries' functions that a trap saw, by library: their own code, which the runtime
 * runs as it is. An anonymous function is named by the whole `trap <- caller` key.
 */
const THIRD_PARTY: Record<string, readonly string[]> = {
  "whatwg-url's URL parser, in the snapshot (url/generated/whatwg-url.generated.ts)": [
    ...['URLStateMachine', 'parseAuthority', 'parseFile', 'parseFileSlash', 'parsePath', 'parsePathStart'],
    ...['parseRelative', 'parseScheme', 'parseSchemeStart', 'at', 'p', 'containsForbiddenDomainCodePoint'],
    ...['containsForbiddenHostCodePoint', 'countSymbols', 'defaultPort', 'domainParser', 'endsInANumber'],
    ...['isASCIIString', 'isComponentPercentEncode', 'isDoubleDot', 'isFragmentPercentEncode'],
    ...['isNormalizedWindowsDriveLetterString', 'isPathPercentEncode', 'isQueryPercentEncode', 'isSingleDot'],
    ...[
      'isSpecialScheme',
      'isURLEncodedPercentEncode',
      'isUserinfoPercentEncode',
      'isWindowsDriveLetterString',
    ],
    ...['parseHost', 'parseIPv4', 'parseIPv4Number', 'parseIPv6', 'parseUrlencoded', 'percentDecodeBytes'],
    ...['percentEncode', 'replaceByteInByteSequence', 'serializeIPv4', 'serializeIPv6', 'serializePath2'],
    ...['serializeUrlencoded2', 'shortenPath', 'startsWithWindowsDriveLetter', 'strictlySplitByteSequence'],
    ...['trimControlChars', 'trimTabAndNewline', 'utf8PercentEncodeCodePoint'],
    ...['utf8PercentEncodeCodePointInternal', 'utf8PercentEncodeString'],
    'Set.prototype.has <- (anonymous)',
    'String.prototype.codePointAt <- (anonymous)',
  ],
  'tr46 and punycode, the tr46 piece': [
    ...inPiece('containsNonASCII', 'decode', 'encode', 'findStatus', 'isBidiDomain', 'mapChars'),
    ...inPiece('processing', 'toASCII', 'ucs2decode', 'validateLabel'),
    'String.prototype.startsWith <- eval (in a piece)',
    'String.prototype.substring <- eval (in a piece)',
  ],
  "web-streams-polyfill's es5 build (minified) and esbuild's module helper, the streams piece": [
    ...inPiece(
      'Ar',
      'He',
      'Ht',
      'Kt',
      'Te',
      'To',
      'Wt',
      '__copyProps',
      'ce',
      'cr',
      'de',
      'e2.push',
      'enqueue',
    ),
    ...inPiece('fe', 'g', 'ie', 'p', 'read', 'vo', 'vr', 'ze'),
    'String.prototype.concat <- eval (in a piece)',
  ],
};

const thirdParty = new Set(Object.values(THIRD_PARTY).flat());
const seenThirdParty = new Set<string>();

/**
 * A trap called from a job, with no frame at all, cannot be told apart by its stack: isolated-vm
 * settles the promise of every asynchronous host call (a Reference applied with `result: { promise:
 * true }`: fetch, crypto.subtle, the sandbox's timers) by adopting another promise, which calls
 * Promise.prototype.then from a job. An async function that returns a promise would too, and the
 * lint rule refuses that in the runtime's sources. So only `then` may fire from a job.
 */
const JOB = '(a job: no frame)';

/** The trap calls of runtime code that no library in THIRD_PARTY made, and no job's `then`. */
function fromRuntime(fired: Fired): Fired {
  const own: Fired = {};
  for (const [key, count] of Object.entries(fired)) {
    const [trap, caller] = key.split(' <- ') as [string, string];
    if (caller === JOB && trap === 'Promise.prototype.then') continue;
    const listed = thirdParty.has(key) ? key : thirdParty.has(caller) ? caller : undefined;
    if (listed === undefined) own[key] = count;
    else seenThirdParty.add(listed);
  }
  return own;
}

// IdnaTestV2 under traps takes 12-17 s on a quiet machine and passed 120 s on one whose two cores
// ran eight other test processes: a bound for a hang, not a timing.
for (const [area, runner, table] of AREAS) {
  test(`WPT ${area}: every subtest still passes, and no trap fires from runtime code`, {
    timeout: 330_000,
  }, async () => {
    const envelope = await sandbox.execute({
      code: `import table from 'table'; import { run } from 'runner'; import { results_ } from 'harness'; import { install, report } from 'traps';
async () => { install(); run(table); const fired = report(); return [results_(), fired]; }`,
      modules: { table: { json: table() }, runner, harness: HARNESS_SOURCE, traps: TRAPS_SOURCE },
      timeout: 300_000,
    });
    expect(envelope.error).toBeUndefined();
    const [results, fired] = envelope.result as [SubtestResult[], Fired];
    const own = fromRuntime(fired);
    expect(judge(area, results, expectations).problems).toStrictEqual([]);
    expect(own).toStrictEqual({});
  });
}

/**
 * The runtime tests' operations, a program each (the test file each follows is named above it).
 * `given(value)` marks what the program hands the runtime to convert as a standard says.
 */
const OPERATIONS: Record<string, string> = {
  // fetch-interfaces.test.ts, Headers.
  Headers: `
    const headers = new Headers(given({ 'Content-Type': 'text/plain', Accept: 'a' }));
    headers.append('accept', 'b');
    headers.append('Set-Cookie', 'x=1');
    headers.append('set-cookie', 'y=2');
    headers.set('X-Trim', '  padded\\t');
    out.push(headers.get('ACCEPT'), headers.has('content-type'), [...headers], headers.getSetCookie());
    out.push([...headers.keys()], [...headers.values()], String(headers));
    headers.forEach((value, name) => out.push(name));
    headers.delete('x-trim');
    out.push([...new Headers(headers)], [...new Headers(given([['a', 'b'], ['c', 'd']]))]);
    try { new Headers(given({ 'bad name': 'x' })) } catch (error) { out.push(error.message) }
    try { new Headers(given([['only-one']])) } catch (error) { out.push(error.message) }
  `,
  // fetch-interfaces.test.ts, Request, Response and the Body mixin.
  'Request and Response': `
    const request = new Request('https://example.com/path?q=1', given({ method: 'post', headers: given({ 'x-custom': 'yes' }), body: 'payload' }));
    out.push(await request.clone().text(), await request.text(), request.method, request.url, request.bodyUsed);
    const moved = new Request(new Request('https://example.com/', { method: 'PUT', body: 'moved' }));
    out.push(await moved.text(), new Request('https://example.com/', given({ cf: given({ a: 1 }) })).cf);
    const response = new Response('hello', given({ status: 201, statusText: 'Created', headers: given({ a: 'b' }) }));
    out.push(response.status, response.ok, await response.clone().text(), await response.arrayBuffer());
    out.push(await new Response('{"a":1}').json(), await new Response(new Uint8Array(2)).bytes());
    const blob = await new Response('blob body', { headers: { 'content-type': 'Text/Plain' } }).blob();
    out.push(blob.type, await blob.text());
    out.push(await Response.json(given({ x: 1 })).text(), Response.redirect('https://example.com/', 301).status, Response.error().type);
    const streamed = new Response(new ReadableStream({ start(controller) { controller.enqueue(new Uint8Array([104, 105])); controller.close(); } }));
    out.push(await streamed.text(), streamed.bodyUsed);
    try { new Response('x', { status: 204 }) } catch (error) { out.push(error.message) }
  `,
  // fetch-interfaces.test.ts, Blob, File and FormData.
  'Blob, File and FormData': `
    const blob = new Blob(given(['a', new Uint8Array([98]), new Blob(given(['c']))]), { type: 'Text/Plain' });
    out.push(blob.size, blob.type, await blob.text(), await blob.slice(1, 3, 'x/y').arrayBuffer(), await blob.bytes());
    out.push(await new Response(blob.stream()).text());
    const file = new File(given(['content']), 'name.txt', { type: 'text/plain', lastModified: 42 });
    out.push(file.name, file.lastModified, await file.text());
    const form = new FormData();
    form.append('a', '1');
    form.append('b', blob);
    form.append('c', file, 'renamed.txt');
    form.set('a', '2');
    form.append('a', '3');
    out.push(form.get('a'), form.getAll('a'), form.has('b'), [...form.keys()], [...form.values()].length);
    form.forEach((value, name) => out.push(name));
    form.delete('b');
    const multipart = new Response(form);
    const type = multipart.headers.get('content-type');
    const parsed = await new Response(await multipart.arrayBuffer(), { headers: { 'content-type': type } }).formData();
    out.push([...parsed.keys()], parsed.get('c').name, await parsed.get('c').text());
    const encoded = await new Response('a=1&b=%20x+y&c', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }).formData();
    out.push([...encoded]);
  `,
  // url.test.ts: URL, URLSearchParams, setters, a host that is not ASCII.
  'URL and URLSearchParams': `
    const url = new URL('https://user:pw@example.com:8080/a/../b?x=1&y=2#frag', 'https://base.example/');
    url.searchParams.append('z', '3');
    url.searchParams.set('x', '9');
    url.searchParams.sort();
    url.searchParams.delete('y');
    out.push(url.href, url.origin, url.searchParams.get('x'), url.searchParams.getAll('z'), url.searchParams.has('y'), url.searchParams.size);
    url.pathname = '/c d';
    url.hash = 'h';
    url.port = '81';
    url.host = 'example.org';
    url.protocol = 'http';
    url.search = '?q=1';
    out.push(String(url), url.toJSON(), URL.canParse('nope'), URL.parse('https://x/').href);
    out.push(new URLSearchParams(given([['a', '1'], ['b', '2']])).toString(), new URLSearchParams(given({ a: '1' })).toString());
    const params = new URLSearchParams('?q=a+b&r=%41');
    out.push([...params], [...params.keys()], [...params.entries()]);
    params.forEach((value, name) => out.push(name));
    out.push(new URL('https://münchen.example/').host, new URL('http://[::1]:80/').href, new URL('http://0x7f.1/').host);
  `,
  // encoding.test.ts: TextEncoder, TextDecoder (UTF-8, UTF-16, a legacy encoding), the streams.
  Encoding: `
    const encoder = new TextEncoder();
    const bytes = encoder.encode('héllo ✓ 😀 \\ud800');
    out.push(encoder.encodeInto('abc', new Uint8Array(2)), new TextDecoder().decode(bytes));
    out.push(new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])));
    const streaming = new TextDecoder();
    out.push(streaming.decode(bytes.subarray(0, 2), { stream: true }) + streaming.decode(bytes.subarray(2)));
    out.push(new TextDecoder('utf-16le').decode(new Uint8Array([0x41, 0])), new TextDecoder('windows-1252').decode(new Uint8Array([0x80])));
    try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])) } catch (error) { out.push(error.message) }
    try { new TextDecoder('nope') } catch (error) { out.push(error.message) }
    const decoded = new Blob(given(['stream ✓'])).stream().pipeThrough(new TextDecoderStream());
    out.push(await new Response(decoded.pipeThrough(new TextEncoderStream())).text());
  `,
  // structured-clone.test.ts.
  structuredClone: `
    const buffer = new Uint8Array([1, 2, 3]).buffer;
    const value = given({
      list: [1, 'two'], map: new Map([[1, 'x']]), set: new Set([1]), date: new Date(0), pattern: /x/gi,
      error: new TypeError('t'), view: new Uint16Array(4), data: new DataView(new ArrayBuffer(4), 1), boxed: Object(3), text: Object('s'),
    });
    value.self = value;
    const copy = structuredClone(value);
    out.push(copy.self === copy, copy.map.get(1), copy.set.has(1), copy.pattern.flags, copy.error.message, copy.view.length);
    out.push(structuredClone(buffer, given({ transfer: [buffer] })).byteLength, buffer.byteLength);
    try { structuredClone(() => {}) } catch (error) { out.push(error.name) }
    try { structuredClone(new URL('https://x/')) } catch (error) { out.push(error.name) }
  `,
  // events.test.ts: EventTarget, Event, CustomEvent, ErrorEvent, AbortController and AbortSignal.
  'Events and AbortSignal': `
    const target = new EventTarget();
    const listener = (event) => out.push(event.type);
    target.addEventListener('x', listener);
    target.addEventListener('x', { handleEvent: (event) => out.push(event.eventPhase) }, given({ once: true }));
    out.push(target.dispatchEvent(new Event('x', { cancelable: true })));
    target.removeEventListener('x', listener);
    out.push(target.dispatchEvent(new Event('x')), new CustomEvent('c', { detail: 1 }).detail, new ErrorEvent('error', { message: 'm' }).message);
    const controller = new AbortController();
    controller.signal.onabort = () => out.push('onabort');
    controller.signal.addEventListener('abort', () => out.push('abort'));
    const follower = AbortSignal.any(given([controller.signal, new AbortController().signal]));
    controller.abort('why');
    out.push(follower.aborted, follower.reason, AbortSignal.abort().reason.name);
    try { controller.signal.throwIfAborted() } catch (reason) { out.push(reason) }
    const timeout = AbortSignal.timeout(1);
    await new Promise((resolve) => timeout.addEventListener('abort', resolve));
    out.push(timeout.reason.name, new DOMException('m', 'AbortError').code);
  `,
  // base64.test.ts, crypto.test.ts, crypto-interface.test.ts.
  'base64 and crypto': `
    out.push(btoa('hello'), atob('aGVsbG8='), crypto.getRandomValues(new Uint8Array(8)).length, crypto.randomUUID().length);
    out.push(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('abc')));
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('secret'), given({ name: 'HMAC', hash: 'SHA-256' }), true, given(['sign', 'verify']));
    const signature = await crypto.subtle.sign('HMAC', key, new Uint8Array([1]));
    out.push(await crypto.subtle.verify('HMAC', key, signature, new Uint8Array([1])), await crypto.subtle.exportKey('jwk', key));
    const aes = await crypto.subtle.generateKey(given({ name: 'AES-GCM', length: 256 }), false, given(['encrypt', 'decrypt']));
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(given({ name: 'AES-GCM', iv }), aes, new Uint8Array([1, 2, 3]));
    out.push(await crypto.subtle.decrypt(given({ name: 'AES-GCM', iv }), aes, sealed), key.algorithm.name, aes.usages);
  `,
  // fetch.test.ts and fetch-data-url.test.ts: data: URLs and a request the caller answers.
  fetch: `
    out.push(await (await fetch('data:text/plain;charset=utf-8;base64,aGk=')).text(), await (await fetch('data:,a%20b')).text());
    out.push((await fetch('data:text/html;x="a\\\\"b",hi')).headers.get('content-type'));
    const response = await fetch('https://api.example.com/items', given({ method: 'PUT', headers: given([['x-a', '1']]), body: 'item' }));
    out.push(response.status, response.headers.get('x-proxied'), await response.text());
    const controller = new AbortController();
    const pending = fetch('https://api.example.com/parked', { signal: controller.signal });
    controller.abort();
    try { await pending } catch (error) { out.push(error.name) }
  `,
  // streams.test.ts: readers, tee, pipes, a byte stream.
  Streams: `
    const make = () => new ReadableStream({ start(controller) { controller.enqueue('a'); controller.enqueue('b'); controller.close(); } });
    const reader = make().getReader();
    out.push(await reader.read(), await reader.read(), await reader.read());
    const branches = make().tee();
    for await (const chunk of branches[0]) out.push(chunk);
    const written = [];
    await new ReadableStream({ start(controller) { controller.enqueue(1); controller.close(); } })
      .pipeThrough(new TransformStream({ transform(chunk, controller) { controller.enqueue(chunk * 2) } }))
      .pipeTo(new WritableStream({ write(chunk) { written.push(chunk) } }));
    const bytes = new ReadableStream({ type: 'bytes', start(controller) { controller.enqueue(new Uint8Array([1, 2, 3])); controller.close(); } });
    const { value } = await bytes.getReader({ mode: 'byob' }).read(new Uint8Array(2));
    out.push(written, value.length);
  `,
  // global-scope.test.ts: the rest of the global scope.
  'Global scope': `
    out.push(typeof performance.now(), navigator.userAgent, String(fetch), Object.prototype.toString.call(globalThis));
    queueMicrotask(() => out.push('microtask'));
    await new Promise((resolve) => setTimeout(resolve, 1));
    reportError(given(new Error('reported')));
  `,
};

const outbound: OutboundFunction = (request, { signal }) =>
  request.url.endsWith('/parked')
    ? new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
    : {
        status: 201,
        statusText: 'Created',
        headers: [['x-proxied', 'yes']],
        body: new TextEncoder().encode('caller'),
      };

for (const [name, body] of Object.entries(OPERATIONS)) {
  test(`${name}: no trap fires from runtime code`, async () => {
    const envelope = await sandbox.execute({
      outbound,
      code: `import { install, report, given } from 'traps';
async () => {
  install();
  const out = [];
  let failure = null;
  try {
    await (async () => {${body}})();
  } catch (error) {
    failure = String(error && error.stack);
  }
  const fired = report();
  return [fired, failure, out.length];
}`,
      modules: { traps: TRAPS_SOURCE },
    });
    expect(envelope.error).toBeUndefined();
    const [fired, failure, count] = envelope.result as [Fired, string | null, number];
    const own = fromRuntime(fired);
    expect(failure).toBeNull();
    expect(count).toBeGreaterThan(0);
    expect(own).toStrictEqual({});
  });
}

test('THIRD_PARTY names only callers a trap saw in the runs above (it only shrinks)', () => {
  expect([...thirdParty.keys()].filter((caller) => !seenThirdParty.has(caller))).toStrictEqual([]);
});
