/**
 * The few Web platform shapes the client touches, declared structurally. The package compiles
 * against ECMAScript alone (no DOM lib, no Node types) so it stays neutral; any runtime's
 * WebSocket, Request and Response fit these.
 */

/** The standard WebSocket interface, as browsers, Deno, Workers and Node 22+ expose it. */
export interface WebSocketLike {
  readonly readyState: number;
  /** Bytes sent and not yet on the wire (every standard WebSocket has it; a socket without it reads 0). */
  readonly bufferedAmount?: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // Method signatures, not properties: their parameters compare bivariantly, so every runtime's
  // own event types (MessageEvent, CloseEvent) fit the structural ones here.
  addEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  addEventListener(type: 'close', listener: (event: CloseEventLike) => void): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  removeEventListener(type: 'close', listener: (event: CloseEventLike) => void): void;
  removeEventListener(type: 'open' | 'error', listener: () => void): void;
}

export interface MessageEventLike {
  readonly data: unknown;
}

export interface CloseEventLike {
  readonly code: number;
  readonly reason: string;
}

export interface AbortSignalLike {
  readonly aborted: boolean;
  /** What the signal was aborted with: an Error's message is the reason a cancel carries. */
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface HeadersLike {
  forEach(callback: (value: string, name: string) => void): void;
}

export interface RequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: HeadersLike;
  readonly redirect?: string;
  readonly body: unknown;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeadersLike;
  readonly url?: string;
  readonly redirected?: boolean;
  readonly body: unknown;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** WebSocket.CONNECTING, OPEN and CLOSING, which every implementation numbers alike. */
export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSING = 2;

/** The part of the standard URL the client uses. */
export interface UrlLike {
  readonly href: string;
  readonly searchParams: { set(name: string, value: string): void };
}

interface Platform {
  readonly URL: new (url: string) => UrlLike;
  readonly Response?: new (
    body: Uint8Array | null,
    init: { status: number; statusText: string; headers: [string, string][] },
  ) => ResponseLike;
  readonly AbortController: new () => { readonly signal: AbortSignalLike; abort(reason?: unknown): void };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The globals the client reads, looked up when used so a test or polyfill installed later is seen. */
export const platform = globalThis as unknown as Platform;
