/**
 * OAuth for HTTP upstreams, end to end: a loopback authorization server from npm
 * (oauth2-mock-server, with dynamic client registration added), an upstream built on the 2.x server
 * SDK that serves only tokens that server signed (fixtures/oauth-upstream.mjs), the real
 * `codemode-mcp login` driven as a person's browser would drive it, and the real bridge serving a
 * program that calls the upstream. The attacks: a redirect with another state, a token file other
 * users may read, one another user owns, and an upstream that keeps refusing the refreshed token;
 * and every token the authorization server issued is looked for in everything the commands printed.
 * The tests share the servers and run in order.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, copyFileSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  authorizationRefusedMessage,
  loggedInMessage,
  loginNeededMessage,
  noTokensReason,
  REFRESH_REFUSED_REASON,
  refusedAfterRefreshMessage,
  tokenFileExposedMessage,
  tokenFileOwnerMessage,
  upstreamFailedMessage,
  WRONG_STATE_MESSAGE,
} from '../src/texts.ts';
import { readTokenFile } from '../src/token-file.ts';
import { type Connected, connect, execute, firstText, removeScratch, scratch } from './mcp-process.ts';

const MCP_BIN = new URL('../bin/codemode-mcp.js', import.meta.url).pathname;
const UPSTREAM = new URL('./fixtures/oauth-upstream.mjs', import.meta.url).pathname;

const authServer = new OAuth2Server();
let upstream: ChildProcess;
let upstreamUrl: string;
let directory: string;
let configFile: string;
let tokenFile: string;
let bridge: Connected | undefined;
let loginOutput = '';
/** Every token the authorization server issued, none of which may be printed anywhere. */
const issued = new Set<string>();
let refreshes = 0;
/** Whether a request to the authorization server carried the header the entry sends its MCP server. */
let entryHeaderSeen = false;

beforeAll(async () => {
  await authServer.issuer.keys.generate('RS256');
  await authServer.start(0, '127.0.0.1');
  const issuer = `http://127.0.0.1:${authServer.address().port}`;
  authServer.issuer.url = issuer;
  const service = authServer.service;
  // Dynamic client registration (RFC 7591), which the mock lacks and MCP servers commonly offer.
  service.on('beforeWellKnownOpenIdConfiguration', (document: { body: Record<string, unknown> }) => {
    document.body.registration_endpoint = `${issuer}/register`;
  });
  service.addRoute('POST', '/register', (request: IncomingMessage, response: ServerResponse) => {
    const metadata = (request as IncomingMessage & { body: Record<string, unknown> }).body;
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...metadata, client_id: randomUUID() }));
  });
  // Each token unique, so a refreshed one never repeats one the upstream took for expired.
  service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload.jti = randomUUID();
  });
  service.on(
    'beforeResponse',
    (answer: { body: Record<string, unknown> }, request: IncomingMessage & { body: unknown }) => {
      if (request.headers['x-tracker-key'] !== undefined) entryHeaderSeen = true;
      for (const name of ['access_token', 'refresh_token', 'id_token']) {
        if (typeof answer.body[name] === 'string') issued.add(answer.body[name]);
      }
      if ((request.body as Record<string, unknown>).grant_type === 'refresh_token') refreshes++;
    },
  );

  upstream = spawn(process.execPath, [UPSTREAM], {
    env: { ...process.env, ISSUER: issuer },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(upstream.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  upstreamUrl = `http://127.0.0.1:${/listening (\d+)/.exec(line.toString())?.[1]}`;

  directory = scratch();
  configFile = join(directory, 'mcp.json');
  tokenFile = join(directory, 'tokens', 'tracker.json');
  const entry = (file: string) => ({
    url: `${upstreamUrl}/mcp`,
    type: 'http',
    headers: { 'X-Tracker-Key': 'for-the-mcp-server-only' },
    oauth: { tokenFile: file },
  });
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        tracker: entry('tokens/tracker.json'),
        exposed: entry('exposed.json'),
        missing: entry('missing.json'),
      },
    }),
  );
}, 30_000);

afterAll(async () => {
  await bridge?.close();
  upstream?.kill();
  await authServer.stop();
  removeScratch();
});

/** Runs `call` in a program through the bridge and returns the message it threw, or 'no throw'. */
async function thrown(call: string): Promise<string> {
  const answer = await execute(
    (bridge as Connected).client,
    `async () => { try { await ${call}; return 'no throw'; } catch (error) { return error.message; } }`,
  );
  return JSON.parse(firstText(answer)) as string;
}

async function upstreamRefusals(): Promise<number> {
  return ((await (await fetch(`${upstreamUrl}/seen`)).json()) as { refused: number }).refused;
}

/** Retries `check` until it passes: a restart lands when the upstream's backoff says. */
async function eventually(check: () => Promise<void>, attempts = 40): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('OAuth for an HTTP upstream', () => {
  test('login runs the authorization-code flow with PKCE, refuses a redirect with another state, and writes the tokens with mode 0600', async () => {
    const login = spawn(process.execPath, [MCP_BIN, 'login', 'tracker', '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = once(login, 'exit');
    const printed = new Promise<string>((resolve) => {
      login.stderr?.on('data', (chunk: Buffer) => {
        loginOutput += chunk.toString('utf8');
        const url = /sign in:\n\n {2}(\S+)\n/.exec(loginOutput)?.[1];
        if (url !== undefined) resolve(url);
      });
    });
    const authorizationUrl = new URL(await printed);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);

    // The person signs in; the authorization server sends the browser back with the code.
    const signedIn = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(signedIn.status).toBe(302);
    const back = new URL(signedIn.headers.get('location') as string);
    expect(back.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // Another page sends the browser to the same address with the code and a state of its own.
    const forged = new URL(back);
    forged.searchParams.set('state', 'a-state-this-login-never-sent');
    const refusal = await fetch(forged);
    expect(refusal.status).toBe(400);
    expect(await refusal.text()).toBe(`${WRONG_STATE_MESSAGE}\n`);
    // The refusal's line reaches this process through the login's stderr, which may come after the
    // answer to the request: waited for, not read at once.
    await expect
      .poll(() => loginOutput, { timeout: 10_000 })
      .toContain(`codemode-mcp login: ${WRONG_STATE_MESSAGE}\n`);

    const accepted = await fetch(back);
    expect(accepted.status).toBe(200);
    expect(await exited).toEqual([0, null]);
    expect(loginOutput).toContain(`codemode-mcp login: ${loggedInMessage('tracker', tokenFile)}\n`);
    expect(modeOf(tokenFile)).toBe(0o600);
    expect(modeOf(join(directory, 'tokens'))).toBe(0o700);
    const stored = await readTokenFile(tokenFile);
    expect(stored?.tokens?.refresh_token).toEqual(expect.any(String));
    expect(issued.has(stored?.tokens?.access_token as string)).toBe(true);
  });

  test('the bridge calls the upstream with the tokens; a token file other users may read, and a missing one, are refused naming what to do', async () => {
    const exposed = join(directory, 'exposed.json');
    copyFileSync(tokenFile, exposed);
    chmodSync(exposed, 0o644);
    bridge = await connect(configFile);
    const served = bridge.stderr();
    expect(served).toContain(upstreamFailedMessage('exposed', tokenFileExposedMessage(exposed, 0o644)));
    const missing = join(directory, 'missing.json');
    expect(served).toContain(
      upstreamFailedMessage('missing', loginNeededMessage('missing', configFile, noTokensReason(missing))),
    );
    expect(tokenFileExposedMessage(exposed, 0o644)).toContain(`Run chmod 600 ${exposed} `);

    const answer = await execute(bridge.client, 'async () => tracker.whoami()');
    expect(answer.structuredContent).toEqual({ subject: 'johndoe' });
  });

  test('an upstream that refuses the expired token gets one refresh, and the call succeeds with the new token', async () => {
    const before = { refreshes, refusals: await upstreamRefusals() };
    const old = (await readTokenFile(tokenFile))?.tokens;
    await fetch(`${upstreamUrl}/expire`, { method: 'POST' });

    const answer = await execute((bridge as Connected).client, 'async () => tracker.whoami()');
    expect(answer.structuredContent).toEqual({ subject: 'johndoe' });
    expect(refreshes - before.refreshes).toBe(1);
    expect((await upstreamRefusals()) - before.refusals).toBe(1);
    // The refreshed tokens replaced the old ones in the file, which kept its mode.
    const now = (await readTokenFile(tokenFile))?.tokens;
    expect(now?.access_token).not.toBe(old?.access_token);
    expect(issued.has(now?.access_token as string)).toBe(true);
    expect(modeOf(tokenFile)).toBe(0o600);
    // The entry's headers went to the MCP server only, never to its authorization server.
    expect(refreshes).toBeGreaterThan(0);
    expect(entryHeaderSeen).toBe(false);
  });

  test('an upstream that refuses the refreshed token too fails the call after one refresh, not a loop of them', async () => {
    // The authorization server now issues tokens that are out of time as they are signed.
    const outOfTime = (token: { payload: Record<string, unknown> }) => {
      token.payload.exp = Math.floor(Date.now() / 1000) - 60;
    };
    authServer.service.on('beforeTokenSigning', outOfTime);
    try {
      const before = { refreshes, refusals: await upstreamRefusals() };
      await fetch(`${upstreamUrl}/expire`, { method: 'POST' });
      expect(await thrown('tracker.whoami()')).toBe(refusedAfterRefreshMessage('tracker', configFile));
      expect(refreshes - before.refreshes).toBe(1);
      // The call, and its one retry with the refreshed token.
      expect((await upstreamRefusals()) - before.refusals).toBe(2);
    } finally {
      authServer.service.off('beforeTokenSigning', outOfTime);
    }
    // Good tokens again: the next refusal is refreshed as the first was.
    expect(await thrown('tracker.whoami()')).toBe('no throw');
  });

  test('a refresh token the authorization server revoked takes the upstream down naming login; the file is read again at each restart', async () => {
    const revoked = (
      answer: { body: Record<string, unknown>; statusCode: number },
      request: { body: unknown },
    ) => {
      if ((request.body as Record<string, unknown>).grant_type !== 'refresh_token') return;
      answer.statusCode = 400;
      answer.body = { error: 'invalid_grant', error_description: 'The refresh token was revoked.' };
    };
    authServer.service.on('beforeResponse', revoked);
    try {
      await fetch(`${upstreamUrl}/expire`, { method: 'POST' });
      expect(await thrown('tracker.whoami()')).toBe(
        loginNeededMessage('tracker', configFile, REFRESH_REFUSED_REASON),
      );
      const { tools } = await (bridge as Connected).client.listTools();
      expect(tools[0]?.description).toContain('Not available now: tracker');
    } finally {
      authServer.service.off('beforeResponse', revoked);
    }
    // Once the authorization server honours the refresh token again, a restart refreshes and serves.
    await eventually(async () => expect(await thrown('tracker.whoami()')).toBe('no throw'));
  });

  test('no token the authorization server issued appears in anything login or the bridge printed', () => {
    expect(issued.size).toBeGreaterThanOrEqual(6);
    const printed = `${loginOutput}\n${(bridge as Connected).stderr()}`;
    expect(printed).toContain('serving 1 of 3 MCP servers: tracker');
    for (const token of issued) expect(printed).not.toContain(token);
  });

  test('login ends with exit 1 naming the refusal when the person declines', async () => {
    authServer.service.once('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
      redirect.url.searchParams.set('error_description', 'The user said no.');
    });
    const login = spawn(process.execPath, [MCP_BIN, 'login', 'tracker', '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = once(login, 'exit');
    let output = '';
    const printed = new Promise<string>((resolve) => {
      login.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const url = /sign in:\n\n {2}(\S+)\n/.exec(output)?.[1];
        if (url !== undefined) resolve(url);
      });
    });
    const declined = await fetch(await printed, { redirect: 'manual' });
    const back = await fetch(declined.headers.get('location') as string);
    const refusal = authorizationRefusedMessage('access_denied', 'The user said no.');
    expect(back.status).toBe(400);
    expect(await back.text()).toBe(`${refusal}\n`);
    expect(await exited).toEqual([1, null]);
    expect(output).toContain(`codemode-mcp login: the authorization did not complete: ${refusal}\n`);
    // The file login wrote before is left as it was.
    expect(await readTokenFile(tokenFile)).toEqual(expect.objectContaining({ tokens: expect.any(Object) }));
  });

  test('a token file another user owns is refused naming what to do', async () => {
    const uid = statSync(tokenFile).uid;
    await expect(readTokenFile(tokenFile, uid + 1)).rejects.toThrow(
      tokenFileOwnerMessage(tokenFile, uid, uid + 1),
    );
  });
});
