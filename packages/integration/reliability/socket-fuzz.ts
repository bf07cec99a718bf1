/**
 * The server's fuzz: hostile messages (hostile-messages.ts) over a real WebSocket to a running
 * server, in batches. The server must answer each message that calls for an answer (a fault, or a
 * result for an execute) and nothing else, and after each batch serve a well-formed execution on
 * the same connection. Each batch also opens a raw TCP connection that upgrades, starts a frame
 * and never finishes it, and one that sends half an upgrade: the server must drop both and serve on.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { decodeMessage, parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';
import fc from 'fast-check';
import { type HostileMessage, hostileMessage } from './hostile-messages.ts';

export interface SocketFuzzOptions {
  readonly url: string;
  readonly token: string;
  readonly messages: number;
  readonly batch: number;
  readonly seed: number;
  readonly maxDepth?: number;
  /** Whether the server is still up; checked after each batch. */
  readonly alive: () => boolean;
  /** A batch of its own sent first (the extreme texts), counted in `messages` beside the drawn ones. */
  readonly first?: readonly HostileMessage[];
  /** How long a batch's answers and its well-formed execution may take (ms). */
  readonly answerWithin?: number;
}

export interface SocketFuzzReport {
  readonly messages: number;
  readonly seconds: number;
  readonly batches: number;
  /** Answers the server owed and did not send, and answers it sent that nothing called for, summed over batches. */
  readonly unanswered: number;
  readonly unexpected: number;
  /** Batches after which the well-formed execution did not come back as its result. */
  readonly servingFailures: readonly string[];
  /** Set when the server went down (or the connection closed), with the batch that was in flight. */
  readonly crash: { readonly batch: readonly HostileMessage[]; readonly what: string } | undefined;
}

/** Types a server takes without answering: replies and cancels naming nothing it waits on. */
const SILENT_TYPES = new Set(['cancel', 'dispatchReply', 'outboundReply']);

/** How many messages the server owes for `text`: a fault or a result, or nothing for a silent one. */
export function answersOwed(text: string): number {
  const decoded = decodeMessage(text);
  return decoded.ok && SILENT_TYPES.has(decoded.message.type) ? 0 : 1;
}

interface Peer {
  readonly socket: WebSocket;
  readonly received: { type: string; id?: string; envelope?: { result?: unknown } }[];
  closed: string | undefined;
}

async function openPeer(url: string, token: string): Promise<Peer> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } } as unknown as string[]);
  const peer: Peer = { socket, received: [], closed: undefined };
  socket.addEventListener('message', (event) => {
    peer.received.push(parseForDispatch(String(event.data)) as Peer['received'][number]);
  });
  socket.addEventListener('close', (event) => {
    peer.closed = `the connection closed with ${event.code} ${event.reason}`;
  });
  await once(socket, 'open');
  socket.send(stringifyForDispatch({ type: 'hello', protocol: 1 }));
  await waitFor(() => peer.received.length > 0 || peer.closed !== undefined, 10_000);
  const hello = peer.received.shift();
  if (hello?.type !== 'hello')
    throw new Error(`the server did not answer the hello: ${JSON.stringify(hello) ?? peer.closed}`);
  return peer;
}

export async function runSocketFuzz(options: SocketFuzzOptions): Promise<SocketFuzzReport> {
  const answerWithin = options.answerWithin ?? 30_000;
  const peer = await openPeer(options.url, options.token);
  const arbitrary = hostileMessage(options.maxDepth);
  const servingFailures: string[] = [];
  let unanswered = 0;
  let unexpected = 0;
  let sent = 0;
  let batches = 0;
  let drawnAndFirst = 0;
  let crash: SocketFuzzReport['crash'];
  const started = performance.now();
  let first = options.first;
  while ((sent < options.messages || first) && crash === undefined) {
    const batch =
      first ??
      fc.sample(arbitrary, {
        numRuns: Math.min(options.batch, options.messages - sent),
        seed: options.seed + batches,
      });
    const size = first ? 0 : batch.length;
    first = undefined;
    const owed = batch.reduce((sum, { text }) => sum + answersOwed(text), 0);
    const before = peer.received.length;
    for (const { text } of batch) peer.socket.send(text);
    await Promise.all([truncatedFrame(options.url, options.token), halfUpgrade(options.url)]);
    const sentinel = `sentinel-${batches}`;
    peer.socket.send(
      stringifyForDispatch({
        type: 'execute',
        id: sentinel,
        request: { code: `async () => ${JSON.stringify(sentinel)}` },
      }),
    );
    const isSentinel = (message: Peer['received'][number]) =>
      message.type === 'result' && message.id === sentinel;
    const answers = () => peer.received.length - before - (peer.received.some(isSentinel) ? 1 : 0);
    await waitFor(
      () =>
        (peer.received.some(isSentinel) && answers() >= owed) ||
        peer.closed !== undefined ||
        !options.alive(),
      answerWithin,
    );
    sent += size;
    drawnAndFirst += batch.length;
    batches++;
    if (peer.closed !== undefined || !options.alive()) {
      crash = { batch, what: peer.closed ?? 'the server exited' };
      break;
    }
    const result = peer.received.find(isSentinel);
    if (result?.envelope?.result !== sentinel)
      servingFailures.push(`batch ${batches}: ${JSON.stringify(result) ?? 'no result'}`);
    // Answers still due after the wait are counted owed; more than owed, unexpected.
    const got = answers();
    if (got < owed) unanswered += owed - got;
    else unexpected += got - owed;
    peer.received.length = 0;
  }
  const seconds = (performance.now() - started) / 1000;
  peer.socket.close();
  return { messages: drawnAndFirst, seconds, batches, unanswered, unexpected, servingFailures, crash };
}

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A WebSocket upgrade request by hand, so what follows it on the socket is ours to write. */
function upgradeRequest(url: URL, token: string): string {
  return [
    `GET ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: c29ha2Z1enoxMjM0NTY3OA==',
    `Authorization: Bearer ${token}`,
    '',
    '',
  ].join('\r\n');
}

/** A client text frame (masked, as RFC 6455 requires of clients) announcing `announced` bytes, with only `payload` of them. */
function partialFrame(payload: Buffer, announced: number): Buffer {
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const header =
    announced < 126
      ? Buffer.from([0x81, 0x80 | announced])
      : Buffer.from([0x81, 0x80 | 126, announced >> 8, announced & 0xff]);
  const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] as number)));
  return Buffer.concat([header, mask, masked]);
}

/** Upgrades, says hello, then sends half a frame and hangs up. */
async function truncatedFrame(address: string, token: string): Promise<void> {
  const url = new URL(address);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(upgradeRequest(url, token));
  await once(socket, 'data');
  const hello = Buffer.from(stringifyForDispatch({ type: 'hello', protocol: 1 }));
  socket.write(partialFrame(hello, hello.length));
  const message = Buffer.from(
    stringifyForDispatch({ type: 'execute', id: 'cut', request: { code: 'async () => 1' } }),
  );
  socket.write(partialFrame(message.subarray(0, message.length >> 1), message.length));
  socket.destroy();
}

/** Sends the first half of an upgrade request and hangs up. */
async function halfUpgrade(address: string): Promise<void> {
  const url = new URL(address);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  await once(socket, 'connect');
  const request = upgradeRequest(url, 'x');
  socket.write(request.slice(0, request.length >> 1));
  socket.destroy();
}
