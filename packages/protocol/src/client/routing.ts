/**
 * Reaching the server that holds a retained execution through a load balancer. A server started
 * with an instance name hands out retained ids as `<instance>.<id>`; a second connection that must
 * reach that server names the instance in its URL's query, where a balancer can read it before the
 * upgrade (HAProxy: `use-server %[url_param(instance)]`, deploy/haproxy/haproxy.cfg). A query
 * parameter rather than a header, because a browser's WebSocket cannot set headers. The server
 * ignores the query; it refuses an id of another instance with HANDLES_CLOSED.
 */
import { platform } from './web.ts';

/** The query parameter naming the instance a connection must reach. */
export const INSTANCE_PARAMETER = 'instance';

/**
 * The instance holding a retained execution: the part of its id before the first dot, or
 * undefined for an id a server without an instance name handed out (which any connection to that
 * server reaches, and nothing routes to).
 */
export function instanceOf(executionId: string): string | undefined {
  const dot = executionId.indexOf('.');
  return dot > 0 ? executionId.slice(0, dot) : undefined;
}

/**
 * `url` with its query naming the instance that holds `executionId`, for a connection that will
 * invoke or close it: `instanceUrl('wss://executors.example/', 'executor-b.4f1c…')` is
 * `wss://executors.example/?instance=executor-b`. An id without an instance leaves `url` as it is.
 */
export function instanceUrl(url: string | { readonly href: string }, executionId: string): string {
  const instance = instanceOf(executionId);
  const routed = new platform.URL(typeof url === 'string' ? url : url.href);
  if (instance !== undefined) routed.searchParams.set(INSTANCE_PARAMETER, instance);
  return routed.href;
}
