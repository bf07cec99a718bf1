/** URL and URLSearchParams: parsing, resolution, serialisation, setters, and the observable shape. */
import { defineArea } from '../src/case.ts';

export default defineArea('url', [
  {
    name: 'parse-components',
    quick: true,
    code: `async () => {
  const u = new URL('https://user:pw@api.example.com:8443/v1/items?limit=10&sort=desc#top');
  return { protocol: u.protocol, username: u.username, password: u.password, hostname: u.hostname, port: u.port,
    pathname: u.pathname, search: u.search, hash: u.hash, origin: u.origin, host: u.host, href: u.href };
}`,
  },
  {
    name: 'relative-resolution',
    code: `async () => {
  const base = 'https://example.com/a/b/c?q=1#h';
  return ['d', './d', '../d', '../../../../d', '/d', '?x=2', '#frag', '//other.org/p', 'https:rel', ''].map((ref) => new URL(ref, base).href);
}`,
  },
  {
    name: 'search-params-build',
    quick: true,
    code: `async () => {
  const url = new URL('https://api.example.com/search');
  url.searchParams.set('q', 'hello world');
  url.searchParams.append('tag', 'a&b');
  url.searchParams.append('tag', 'c=d');
  url.searchParams.set('page', 2);
  return url.toString();
}`,
  },
  {
    name: 'search-params-read',
    code: `async () => {
  const params = new URLSearchParams('a=1&b=2&a=3&empty=&flag');
  return { a: params.get('a'), all: params.getAll('a'), hasB: params.has('b'), missing: params.get('zzz'), empty: params.get('empty'),
    flag: params.get('flag'), size: params.size, entries: [...params], keys: [...params.keys()], values: [...params.values()] };
}`,
  },
  {
    name: 'search-params-sort-delete',
    code: `async () => {
  const params = new URLSearchParams('z=1&a=2&m=3&a=1');
  params.sort();
  const sorted = params.toString();
  params.delete('a', '2');
  const afterValueDelete = params.toString();
  params.delete('m');
  return { sorted, afterValueDelete, final: params.toString(), hasA1: params.has('a', '1'), hasA2: params.has('a', '2') };
}`,
  },
  {
    name: 'search-params-from-record',
    code: `async () => {
  const params = new URLSearchParams({ page: 2, q: 'café au lait', empty: '', symbols: '+/?=&#' });
  return { text: params.toString(), roundTrip: Object.fromEntries(new URLSearchParams(params.toString())) };
}`,
  },
  {
    name: 'plus-and-percent',
    code: `async () => {
  const params = new URLSearchParams('q=a+b%20c&x=%E2%9C%93&bad=%zz');
  return { q: params.get('q'), x: params.get('x'), bad: params.get('bad'), reencoded: params.toString() };
}`,
  },
  {
    name: 'percent-encoding-in-parts',
    code: `async () => {
  const u = new URL('https://example.com/a path/ü?q=ü ü&x=\\'"<>#f ü^');
  return { href: u.href, pathname: u.pathname, search: u.search, hash: u.hash };
}`,
  },
  {
    name: 'idna-hostnames',
    code: `async () => ['https://münchen.de/', 'https://EXAMPLE.com./', 'https://xn--nxasmq6b.com/', 'https://例え.テスト/'].map((s) => new URL(s).hostname)`,
  },
  {
    name: 'ip-hosts',
    code: `async () => ['http://0x7f.1/', 'http://127.1/', 'http://[::1]:80/', 'http://[2001:db8::0:1]/', 'http://192.168.0.257/'].map((s) => {
  try { return new URL(s).host; } catch (e) { return e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'setters',
    code: `async () => {
  const u = new URL('https://example.com/old?x=1#h');
  u.pathname = '/new path/ä';
  u.search = 'a=1&b=2';
  u.hash = 'section 2';
  u.port = '8080';
  u.hostname = 'api.example.org';
  u.username = 'me@home';
  const afterMost = u.href;
  u.port = '443';
  u.protocol = 'ftp';
  u.protocol = 'http';
  u.port = 'abc';
  return { afterMost, final: u.href };
}`,
  },
  {
    name: 'can-parse-and-parse',
    code: `async () => ({
  ok: URL.canParse('https://example.com'),
  bad: URL.canParse('not a url'),
  withBase: URL.canParse('/x', 'https://example.com'),
  parsed: URL.parse('/p?q', 'https://example.com')?.href ?? null,
  parsedBad: URL.parse('::::'),
})`,
  },
  {
    name: 'to-json-and-string',
    code: `async () => {
  const u = new URL('HTTP://EXAMPLE.COM/./a/../b/%7Efoo');
  return { json: JSON.stringify({ link: u }), string: String(u), toJSON: u.toJSON(), concat: 'url: ' + u };
}`,
  },
  {
    name: 'issue-links-from-tool',
    tools: ['github'],
    code: `async () => {
  const issues = await github.listIssues({ repo: 'acme/app', state: 'open' });
  return issues.map((issue) => {
    const url = new URL('/repos/acme/app/issues/' + issue.number, 'https://api.github.com');
    url.searchParams.set('labels', issue.labels.join(','));
    return url.href;
  });
}`,
  },
  {
    name: 'special-and-opaque-schemes',
    code: `async () => ['file:///tmp/a b.txt', 'data:text/plain,hi there', 'mailto:ada@example.com', 'blob:https://example.com/uuid', 'ws://example.com:80/chat', 'https://example.com:443/', 'javascript:alert(1)'].map((s) => {
  const u = new URL(s);
  return [u.protocol, u.host, u.pathname, u.origin, u.port];
})`,
  },
  {
    name: 'search-params-live-binding',
    code: `async () => {
  const u = new URL('https://example.com/?a=1');
  const params = u.searchParams;
  params.append('b', 'two words');
  const afterAppend = u.search;
  u.search = '?c=3';
  const afterSearch = [...params];
  params.delete('c');
  return { afterAppend, afterSearch, finalHref: u.href, same: u.searchParams === params };
}`,
  },
  {
    name: 'observable-shape',
    code: `async () => {
  const u = new URL('https://example.com/');
  const p = new URLSearchParams('a=1');
  return {
    urlTag: Object.prototype.toString.call(u), paramsTag: Object.prototype.toString.call(p),
    urlOwn: Object.getOwnPropertyNames(u), urlSymbols: Object.getOwnPropertySymbols(u).length,
    paramsOwn: Object.getOwnPropertyNames(p), paramsSymbols: Object.getOwnPropertySymbols(p).length,
    hrefIsAccessor: typeof Object.getOwnPropertyDescriptor(URL.prototype, 'href')?.get,
    urlLength: URL.length, paramsLength: URLSearchParams.length, iterator: typeof p[Symbol.iterator],
  };
}`,
  },
  {
    name: 'search-params-for-each-and-mutation',
    code: `async () => {
  const params = new URLSearchParams([['x', '1'], ['y', '2'], ['x', '3']]);
  const seen = [];
  params.forEach((value, key, self) => seen.push(key + '=' + value + (self === params ? '' : '!')));
  params.set('x', 'only');
  return { seen, after: params.toString() };
}`,
  },
  {
    name: 'query-string-for-api-call',
    tools: ['weather'],
    code: `async () => {
  const cities = ['Paris', 'São Paulo', 'New York'];
  const urls = [];
  for (const city of cities) {
    const forecast = await weather.forecast({ city, days: 2 });
    const qs = new URLSearchParams({ city, high: String(forecast.days[0].high), units: 'metric' });
    urls.push('https://reports.example.com/daily?' + qs);
  }
  return urls;
}`,
  },
]);
