/**
 * The plain HTTP side of the server: GET /healthz (the engine report and the pool) and GET
 * /metrics (Prometheus text), for the load balancer and the monitoring that run beside it.
 * Neither needs the token: they say nothing a client could use against the executor.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IsolateExecutor } from '@supolka/codemode-executor';
import { PROTOCOL_VERSION } from '@supolka/codemode-protocol/wire';
import type { Gauges, ServerMetrics } from './metrics.ts';
import { ROUTE_NOT_FOUND_MESSAGE } from './texts.ts';

export interface RouteContext {
  readonly executor: IsolateExecutor;
  readonly metrics: ServerMetrics;
  readonly gauges: () => Gauges;
  readonly draining: () => boolean;
  readonly instance: string | undefined;
}

/** How long /healthz waits for a child's engine report before answering 503. */
const ENGINE_WAIT = 2_000;

export async function serveRoute(
  request: IncomingMessage,
  response: ServerResponse,
  context: RouteContext,
): Promise<void> {
  // The path as the request names it, its query cut off and nothing resolved: a balancer in front
  // matches that same text (deploy/haproxy/haproxy.cfg refuses `path /metrics`), and a WHATWG URL
  // would resolve `/./metrics` or `/x/%2e%2e/metrics` into a route the balancer let through.
  const path = requestPath(request.url ?? '/');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    reply(response, 405, 'text/plain', 'Only GET /healthz and GET /metrics are served over plain HTTP.\n');
    return;
  }
  if (path === '/metrics') {
    reply(response, 200, context.metrics.contentType, await context.metrics.render());
    return;
  }
  if (path === '/healthz') {
    const { pool, connections, inFlight } = context.gauges();
    const engine = await engineReport(context.executor);
    const status = context.draining() ? 'draining' : 'error' in engine ? 'unavailable' : 'ok';
    const body = {
      status,
      protocol: PROTOCOL_VERSION,
      ...(context.instance ? { instance: context.instance } : {}),
      engine,
      pool,
      connections,
      inFlight,
    };
    reply(response, status === 'ok' ? 200 : 503, 'application/json', `${JSON.stringify(body, null, 2)}\n`);
    return;
  }
  reply(response, 404, 'text/plain', ROUTE_NOT_FOUND_MESSAGE);
}

/** The request target up to its query or fragment, exactly as sent. */
function requestPath(target: string): string {
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

async function engineReport(executor: IsolateExecutor): Promise<object> {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no child reported healthy within ${ENGINE_WAIT} ms`)),
      ENGINE_WAIT,
    );
  });
  try {
    return await Promise.race([executor.engine(), wait]);
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

function reply(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}
