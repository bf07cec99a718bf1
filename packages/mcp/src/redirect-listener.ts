/**
 * The loopback address `codemode-mcp login` asks the authorization server to send the person's
 * browser back to (RFC 8252's redirect for a program on the person's machine): an HTTP server on
 * 127.0.0.1 that waits for one redirect carrying the state the login sent. Any page the browser
 * has open can send it to this address, so a redirect whose state is not the login's is refused
 * (and the wait goes on for the real one), and what the redirect carries is answered as plain text,
 * never as a page that could run script on this origin.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AUTHORIZED_PAGE,
  authorizationRefusedMessage,
  loginTimeoutMessage,
  REDIRECT_WITHOUT_CODE_MESSAGE,
  WRONG_STATE_MESSAGE,
} from './texts.ts';

export const REDIRECT_PATH = '/callback';

/** What the authorization server sent back: the code to exchange and, if it names itself, its issuer. */
export interface AuthorizationResponse {
  readonly code: string;
  readonly iss: string | undefined;
}

export interface RedirectListener {
  /** `http://127.0.0.1:PORT/callback`. */
  readonly redirectUrl: string;
  /**
   * Resolves with the first redirect that carries `state`; rejects when the authorization server
   * answered an error for it, or when none came within `timeout` ms. Redirects with another state
   * are refused and reported to `onRefused`.
   */
  wait(state: string, timeout: number, onRefused: (reason: string) => void): Promise<AuthorizationResponse>;
  close(): Promise<void>;
}

export async function listenForRedirect(port: number): Promise<RedirectListener> {
  let deliver: ((request: URL, response: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== REDIRECT_PATH || deliver === undefined) {
      return answer(
        response,
        404,
        `Not found; this address only takes the redirect of a login (${REDIRECT_PATH}).`,
      );
    }
    deliver(url, response);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${bound}${REDIRECT_PATH}`,
    wait: (state, timeout, onRefused) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          deliver = undefined;
          reject(new Error(loginTimeoutMessage(timeout)));
        }, timeout);
        deliver = (url, response) => {
          const given = url.searchParams.get('state');
          if (given === null || !sameText(given, state)) {
            onRefused(WRONG_STATE_MESSAGE);
            return answer(response, 400, WRONG_STATE_MESSAGE);
          }
          const error = url.searchParams.get('error');
          const code = url.searchParams.get('code');
          deliver = undefined;
          clearTimeout(timer);
          if (error !== null) {
            const refused = authorizationRefusedMessage(
              error,
              url.searchParams.get('error_description') ?? '',
            );
            answer(response, 400, refused);
            return reject(new Error(refused));
          }
          if (code === null) {
            answer(response, 400, REDIRECT_WITHOUT_CODE_MESSAGE);
            return reject(new Error(REDIRECT_WITHOUT_CODE_MESSAGE));
          }
          answer(response, 200, AUTHORIZED_PAGE);
          resolve({ code, iss: url.searchParams.get('iss') ?? undefined });
        };
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Compared in constant time: the state is the one secret the redirect must prove it knows. */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
  response.end(`${text}\n`);
}
