/**
 * `serve` + ExecutorClient over Node's own WebSocket: the program as an arrow, the tools and the
 * proxied fetch served on the client's side, native fetch performed by the server (its
 * allowNativeOutbound, and the executor's loopback opt-in), the console streamed in batches, a
 * retained handler invoked with a Request through the client, a durable run resumed with
 * client.resume.
 */
import { ExecutorClient, type OutboundHandler } from '@supolka/codemode-protocol/client';
import { createServer, type ExecutorServer } from '../../../../server/src/server.ts';
import { providersNamed, proxiedFetch } from '../catalogue.ts';
import type { Behaviour, DoorSpec } from '../door.ts';
import type { Outcome } from '../outcome.ts';
import { PACKAGE_DIRECTORIES, usesPackages } from '../package-doors.ts';
import { durableKeys } from './durable.ts';
import { allowsLoopback, CANCEL_REASON } from './hooks.ts';
import { type RowRequest, runThroughObjectForm } from './object-form.ts';

export const TOKEN = 'path-matrix-token-0123456789';

/**
 * A server that performs native requests, reaching loopback when `allowLoopback` says so, under
 * its `wallClockLimit` when one is given, its programs allowed the matrix's packages when
 * `packages` says so (the operator's option: no client names one).
 */
export async function startServer(
  allowLoopback = true,
  wallClockLimit?: number,
  packages = false,
): Promise<ExecutorServer> {
  const server = await createServer({
    port: 0,
    token: TOKEN,
    allowNativeOutbound: true,
    ...(wallClockLimit !== undefined ? { wallClockLimit } : {}),
    executor: {
      poolSize: 2,
      allowLoopback,
      durable: { keys: durableKeys() },
      ...(packages ? { packages: PACKAGE_DIRECTORIES } : {}),
    },
  });
  await server.executor.engine();
  return server;
}

export function connectClient(server: ExecutorServer): Promise<ExecutorClient> {
  // Node's WebSocket takes headers in its second argument (undici's extension of the standard).
  const socket = new WebSocket(server.url, { headers: { authorization: `Bearer ${TOKEN}` } } as never);
  return ExecutorClient.connect(socket);
}

export const serverDoor: DoorSpec = {
  name: 'serve + ExecutorClient (Node)',
  takes: 'arrow',
  lacks: {},
  // The client's own reason crosses in its cancel (protocol version 3).
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  async open() {
    // The loopback opt-in and the packages are the server's executor's, the wall-clock bound the
    // server's: one server and client for each set of values a row asks for.
    const doors = new Map<string, Promise<{ server: ExecutorServer; client: ExecutorClient }>>();
    const clientFor = async (behaviour: Behaviour) => {
      const allowLoopback = allowsLoopback(behaviour);
      const packages = usesPackages(behaviour);
      const key = `${allowLoopback} ${behaviour.wallClockLimit} ${packages}`;
      let door = doors.get(key);
      if (door === undefined) {
        door = startServer(allowLoopback, behaviour.wallClockLimit, packages).then(async (server) => ({
          server,
          client: await connectClient(server),
        }));
        doors.set(key, door);
      }
      return (await door).client;
    };
    return {
      run: async (behaviour) => run(await clientFor(behaviour), behaviour),
      close: async () => {
        for (const door of doors.values()) {
          const { server, client } = await door;
          client.close();
          await server.close();
        }
      },
    };
  },
};

/** The tri-state as the client takes it: the catalogue's function served on this side, or null or undefined. */
function clientOutbound(behaviour: Behaviour): OutboundHandler | null | undefined {
  if (behaviour.outbound === 'proxied') return proxiedFetch;
  if (behaviour.outbound === 'native') return undefined;
  return null;
}

function run(client: ExecutorClient, behaviour: Behaviour): Promise<Outcome> {
  const withTools = (request: RowRequest) => ({
    ...request,
    providers: providersNamed(behaviour.providers ?? []),
    outbound: clientOutbound(behaviour),
  });
  return runThroughObjectForm(
    {
      execute: (request, options) => client.execute(withTools(request), options),
      resume: (token, answers, request, options) =>
        client.resume(token, answers, withTools(request), options),
      invoke: async (executionId, request) => (await client.invoke(executionId, request)) as Response,
      closeHandles: (executionId) => client.closeHandles(executionId),
    },
    behaviour,
  );
}
