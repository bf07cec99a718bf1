/**
 * Connections to `mcp --http` that have not yet made a request that passed authentication, held
 * under `serve`'s two numbers (docs/server.md): at most DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS at
 * once, each for at most DEFAULT_HELLO_TIMEOUT. A peer is counted from the moment its connection
 * opens, before it has sent a byte, so one that half-sends a request and waits holds a place and
 * a descriptor for 5 s at most, and a flood of them holds at most 128 descriptors.
 */
import type { Socket } from 'node:net';

export class UnauthenticatedPeers {
  readonly #waiting = new Map<Socket, NodeJS.Timeout>();
  readonly #limit: number;
  readonly #timeout: number;

  constructor(limit: number, timeout: number) {
    this.#limit = limit;
    this.#timeout = timeout;
  }

  /** Counts a new connection; false when the count is full and the connection must be refused. */
  admit(socket: Socket): boolean {
    if (this.#waiting.size >= this.#limit) return false;
    const timer = setTimeout(() => socket.destroy(), this.#timeout);
    timer.unref();
    this.#waiting.set(socket, timer);
    socket.once('close', () => this.authenticated(socket));
    return true;
  }

  /** The connection made a request that passed: it no longer counts, and keeps no deadline. */
  authenticated(socket: Socket): void {
    clearTimeout(this.#waiting.get(socket));
    this.#waiting.delete(socket);
  }
}
