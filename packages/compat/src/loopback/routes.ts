/**
 * What the loopback server answers to the programs' fetch calls. Every answer is deterministic
 * (no dates, no random values), so both runtimes see byte-identical responses and any difference
 * in what a program prints comes from the runtime that read them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

export const USER = { id: 1, name: 'Ada Lovelace', tags: ['math', 'poetry'] };

const USERS = [
  { id: 1, name: 'Ada Lovelace' },
  { id: 2, name: 'Alan Turing' },
  { id: 3, name: 'Grace Hopper' },
];

/** Request headers /echo reports: the ones a program sets itself, never a runtime's defaults. */
function isEchoedHeader(name: string): boolean {
  return (
    name.startsWith('x-') || ['content-type', 'content-length', 'authorization', 'cookie'].includes(name)
  );
}

function send(
  res: ServerResponse,
  status: number,
  type: string | undefined,
  body: string | Uint8Array,
): void {
  if (type !== undefined) res.setHeader('content-type', type);
  res.statusCode = status;
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Answers one request of a program; `origin` is the server's own, for absolute redirects. */
export async function answer(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const url = new URL(req.url ?? '/', origin);
  const parts = url.pathname.split('/').filter(Boolean);
  const body = await readBody(req);
  const method = req.method ?? 'GET';
  switch (parts[0]) {
    case 'json':
      return json(res, 200, USER);
    case 'text':
      return send(res, 200, 'text/plain; charset=utf-8', 'hello from loopback\n');
    case 'html':
      return send(res, 200, 'text/html; charset=utf-8', '<h1>Hi</h1>');
    case 'bytes':
      return send(
        res,
        200,
        'application/octet-stream',
        Uint8Array.from({ length: 16 }, (_, i) => i),
      );
    case 'utf8':
      return send(res, 200, 'text/plain; charset=utf-8', 'héllo wörld ✓ 😀');
    case 'form':
      return send(res, 200, 'application/x-www-form-urlencoded', 'a=1&b=two&b=three&c=%C3%A9');
    case 'malformed':
      return send(res, 200, 'application/json', '{bad');
    case 'empty':
      return send(res, 204, undefined, '');
    case 'gzip':
      res.setHeader('content-encoding', 'gzip');
      return send(res, 200, 'application/json', gzipSync(JSON.stringify(USER)));
    case 'large':
      return send(res, 200, 'text/plain', 'x'.repeat(Number(url.searchParams.get('kb') ?? 64) * 1024));
    case 'headers':
      res.setHeader('x-custom', 'a');
      res.setHeader('set-cookie', ['session=abc; Path=/', 'theme=dark; Path=/']);
      res.setHeader('cache-control', 'no-store');
      res.setHeader('x-multi', ['one', 'two']);
      return json(res, 200, { ok: true });
    case 'echo': {
      const headers: Record<string, string> = {};
      const all = parts[1] === 'all';
      for (const name of Object.keys(req.headers).sort()) {
        if (all || isEchoedHeader(name)) headers[name] = String(req.headers[name]);
      }
      return json(res, 200, {
        method,
        path: url.pathname,
        query: url.search,
        headers,
        body: body.toString('utf8'),
        bytes: body.length,
      });
    }
    case 'status': {
      const status = Number(parts[1] ?? 200);
      const text = url.searchParams.get('text');
      if (text !== null) res.statusMessage = text;
      const nullBody = status === 204 || status === 205 || status === 304;
      return send(res, status, nullBody ? undefined : 'text/plain', nullBody ? '' : `status ${status}`);
    }
    case 'redirect': {
      res.setHeader('location', url.searchParams.get('to') ?? '/json');
      return send(res, Number(parts[1] ?? 302), undefined, '');
    }
    case 'redirect-absolute':
      res.setHeader('location', `${origin}/json`);
      return send(res, Number(parts[1] ?? 301), undefined, '');
    case 'chain': {
      const left = Number(parts[1] ?? 0);
      res.setHeader('location', left > 0 ? `/chain/${left - 1}` : '/json');
      return send(res, 302, undefined, '');
    }
    case 'loop':
      res.setHeader('location', '/loop');
      return send(res, 302, undefined, '');
    case 'slow': {
      const ms = Number(url.searchParams.get('ms') ?? 200);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return send(res, 200, 'text/plain', 'slow done');
    }
    case 'hang':
      // Never answers; the server closes the socket when it stops.
      return;
    case 'destroy':
      req.socket.destroy();
      return;
    case 'users': {
      if (parts[1] === undefined) {
        if (method === 'POST') {
          const created = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
          return json(res, 201, { id: 4, ...created });
        }
        return json(res, 200, USERS);
      }
      const user = USERS.find((item) => item.id === Number(parts[1]));
      if (method === 'DELETE') return send(res, user ? 204 : 404, undefined, '');
      return user ? json(res, 200, user) : json(res, 404, { error: `user ${parts[1]} not found` });
    }
    case 'form-echo': {
      // Parses what the program posted with Node's own body reader, so the random multipart
      // boundary each runtime picks never reaches the output.
      const parsed = await new Response(body, {
        headers: { 'content-type': req.headers['content-type'] ?? 'text/plain' },
      }).formData();
      const fields: [string, string][] = [];
      for (const [name, value] of parsed) {
        fields.push([
          name,
          typeof value === 'string' ? value : `file:${value.name}:${value.type}:${value.size}`,
        ]);
      }
      return json(res, 200, { contentType: (req.headers['content-type'] ?? '').split(';')[0], fields });
    }
    default:
      return json(res, 404, { error: `no route ${url.pathname}` });
  }
}
