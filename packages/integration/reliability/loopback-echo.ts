/**
 * A loopback HTTP server for proxied fetches: it answers every request with its own path and
 * query, so a run that fetched can prove the answer was its own. Bound to 127.0.0.1 on a port the
 * kernel picks; closed with every connection it holds.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';

export interface LoopbackEcho {
  readonly origin: string;
  close(): Promise<void>;
}

export async function startLoopbackEcho(): Promise<LoopbackEcho> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end(request.url ?? '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
