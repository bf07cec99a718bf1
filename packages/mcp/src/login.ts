/**
 * `codemode-mcp login SERVER --config FILE`: a person's authorization for one HTTP upstream, for a
 * bridge that a desktop client spawns over stdio and that therefore has no terminal or browser of
 * its own. Run in a terminal, it runs OAuth's authorization-code flow with PKCE through the SDK's
 * `auth()`: discovers the server's authorization server, registers a client when the config names
 * none, prints the address to open, waits on a loopback port for the browser to come back with the
 * code (redirect-listener.ts), exchanges it, and writes the tokens to the entry's `oauth.tokenFile`
 * (mode 0600, written whole). The bridge then reads that file and refreshes the tokens itself.
 * Nothing it prints holds a token.
 */
import { auth } from '@modelcontextprotocol/client';
import type { Output } from '@supolka/codemode-executor/cli';
import { UsageError } from '@supolka/codemode-executor/cli';
import { boundedFetch } from './bounded-fetch.ts';
import { LOGIN_USAGE, parseLoginCommandLine } from './command-line.ts';
import { isStdio, type OAuthConfig, readConfig, tokenFilePath } from './config.ts';
import { LoginNeededError, TokenFileProvider } from './oauth-provider.ts';
import { listenForRedirect } from './redirect-listener.ts';
import {
  loggedInMessage,
  loginNotHttpMessage,
  loginUnknownServerMessage,
  loginWithoutOauthMessage,
  openAuthorizationMessage,
} from './texts.ts';
import { writeTokenFile } from './token-file.ts';

/** How long login waits for the person to sign in and the browser to come back. */
export const LOGIN_TIMEOUT = 300_000;

export async function runLogin(argv: readonly string[], output: Output): Promise<number> {
  const say = (line: string) => output.err(`codemode-mcp login: ${line}\n`);
  let server: string;
  let configFile: string;
  try {
    const parsed = parseLoginCommandLine(argv);
    if (parsed === 'help') {
      output.out(LOGIN_USAGE);
      return 0;
    }
    ({ server, config: configFile } = parsed);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`codemode-mcp login: ${error.message}\n\n${LOGIN_USAGE}`);
    return 2;
  }
  let url: string;
  let oauth: OAuthConfig;
  try {
    const config = await readConfig(configFile);
    const entry = config.mcpServers[server];
    if (entry === undefined || !Object.hasOwn(config.mcpServers, server)) {
      throw new UsageError(loginUnknownServerMessage(server, configFile, Object.keys(config.mcpServers)));
    }
    if (isStdio(entry)) throw new UsageError(loginNotHttpMessage(server));
    if (entry.oauth === undefined) throw new UsageError(loginWithoutOauthMessage(server, configFile));
    ({ url, oauth } = entry);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(error.message);
    return 2;
  }

  const tokenFile = tokenFilePath(configFile, oauth);
  let listener: Awaited<ReturnType<typeof listenForRedirect>>;
  try {
    listener = await listenForRedirect(oauth.redirectPort ?? 0);
  } catch (error) {
    say(`could not listen on 127.0.0.1 for the browser's return: ${(error as Error).message}`);
    return 1;
  }
  // A new authorization from nothing: what the file held is replaced once this one succeeds.
  const provider = new TokenFileProvider({
    oauth,
    stored: {},
    redirectUrl: listener.redirectUrl,
    onRedirect: (authorizationUrl) => say(openAuthorizationMessage(server, authorizationUrl.href)),
    loginNeeded: () =>
      new LoginNeededError('the authorization flow lost its code verifier; run login again.'),
  });
  const fetchFn = boundedFetch();
  try {
    const started = await auth(provider, { serverUrl: url, fetchFn });
    if (started === 'REDIRECT') {
      const { code, iss } = await listener.wait(provider.expectedState, LOGIN_TIMEOUT, say);
      await auth(provider, {
        serverUrl: url,
        authorizationCode: code,
        fetchFn,
        ...(iss !== undefined ? { iss } : {}),
      });
    }
    await writeTokenFile(tokenFile, provider.stored);
    say(loggedInMessage(server, tokenFile));
    return 0;
  } catch (error) {
    say(`the authorization did not complete: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await listener.close();
  }
}
