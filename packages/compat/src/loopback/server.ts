/**
 * The suite's loopback HTTP server. It plays three parts: the network the programs fetch from
 * (routes.ts), the tool endpoint the workerd side reaches its fake through (`POST
 * /__tools/<run>`), so one FakeTools implementation answers both runtimes, and the place a test
 * worker reads workerd's own console lines of a run from (`GET /__console/<run>?lines=N`), which
 * the workerd process beside it feeds (src/workerd/console-transcript.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeTools } from '../tools/fake.ts';
import { ConsoleTranscripts } from '../workerd/console-transcript.ts';
import { answer } from './routes.ts';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** What the workerd process writes its console streams to (WorkerdOptions.transcripts). */
  readonly transcripts: ConsoleTranscripts;
  close(): Promise<void>;
}

const TOOLS_PREFIX = '/__tools/';
const CONSOLE_PREFIX = '/__console/';

export async function startLoopbackServer(): Promise<LoopbackServer> {
  // One fake per run id: each side of each case starts from empty state.
  const fakes = new Map<string, FakeTools>();
  const transcripts = new ConsoleTranscripts();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const handled = path.startsWith(TOOLS_PREFIX)
      ? tools(path.slice(TOOLS_PREFIX.length))
      : path.startsWith(CONSOLE_PREFIX)
        ? consoleLines(new URL(path, origin))
        : answer(req, res, origin);
    handled.catch((error: unknown) => {
      if (!res.headersSent) res.statusCode = 500;
      res.end(`loopback server failed: ${error instanceof Error ? error.stack : String(error)}`);
    });

    async function tools(run: string): Promise<void> {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        provider: string;
        tool: string;
        args: string;
      };
      let fake = fakes.get(run);
      if (fake === undefined) {
        fake = new FakeTools();
        fakes.set(run, fake);
      }
      res.setHeader('content-type', 'application/json');
      res.end(await fake.dispatch(call.provider, call.tool, call.args));
    }

    async function consoleLines(url: URL): Promise<void> {
      const run = decodeURIComponent(url.pathname.slice(CONSOLE_PREFIX.length));
      const texts = await transcripts.take(run, Number(url.searchParams.get('lines')));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(texts));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    origin,
    port,
    transcripts,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        // /hang never answers: drop open sockets instead of waiting for them.
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}
