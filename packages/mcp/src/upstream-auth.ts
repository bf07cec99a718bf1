/**
 * How the bridge authorizes its requests to an HTTP upstream configured with `oauth`: the access
 * token from the token file on every request and, when the upstream answers 401, one refresh
 * through the SDK's `auth()` (the transport then sends the request once more, and a second 401
 * fails it: one refresh per refusal, never a loop). Refusals that arrive together share one refresh,
 * since an authorization server that rotates refresh tokens honours each only once. Before
 * refreshing, the file is read again: a login run meanwhile, or another bridge's refresh, may have
 * left a newer token there. A flow that needs a person ends in LoginNeededError naming the login
 * command, as the bridge has nobody to send to an authorization page.
 */
import { type AuthProvider, auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { boundedFetch } from './bounded-fetch.ts';
import type { OAuthConfig } from './config.ts';
import { LoginNeededError, TokenFileProvider } from './oauth-provider.ts';
import {
  loginNeededMessage,
  NO_REFRESH_TOKEN_REASON,
  noTokensReason,
  REFRESH_REFUSED_REASON,
  refreshFailedReason,
} from './texts.ts';
import { readTokenFile, type StoredAuthorization, writeTokenFile } from './token-file.ts';

/** What the transport hands onUnauthorized: the 401 response and the server's URL. */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

export interface UpstreamAuthOptions {
  /** The upstream's key in mcpServers, for the sentences. */
  readonly server: string;
  /** The config file, which the login command the sentences name is given. */
  readonly configFile: string;
  /** The token file's path, resolved against the config file's folder. */
  readonly tokenFile: string;
  readonly oauth: OAuthConfig;
}

export class UpstreamAuth implements AuthProvider {
  readonly #options: UpstreamAuthOptions;
  readonly #provider: TokenFileProvider;
  #refreshing: Promise<void> | undefined;

  private constructor(options: UpstreamAuthOptions, stored: StoredAuthorization) {
    this.#options = options;
    this.#provider = new TokenFileProvider({
      oauth: options.oauth,
      stored,
      // The SDK's flow reaches the redirect when the refresh was refused or failed (it says why on stderr).
      loginNeeded: () => this.#loginNeeded(REFRESH_REFUSED_REASON),
      onSave: (saved) => writeTokenFile(options.tokenFile, saved),
    });
  }

  /**
   * Reads the token file for one connection: a TokenFileError for a file that may not be used,
   * LoginNeededError when it holds no tokens.
   */
  static async open(options: UpstreamAuthOptions): Promise<UpstreamAuth> {
    const stored = await readTokenFile(options.tokenFile);
    const authorization = new UpstreamAuth(options, stored ?? {});
    if (stored?.tokens === undefined) throw authorization.#loginNeeded(noTokensReason(options.tokenFile));
    return authorization;
  }

  async token(): Promise<string | undefined> {
    return this.#provider.accessToken;
  }

  onUnauthorized(context: UnauthorizedContext): Promise<void> {
    this.#refreshing ??= this.#refresh(context).finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refresh(context: UnauthorizedContext): Promise<void> {
    const refused = this.#provider.accessToken;
    const stored = await readTokenFile(this.#options.tokenFile);
    if (stored?.tokens !== undefined && stored.tokens.access_token !== refused) {
      this.#provider.adopt(stored);
      return;
    }
    if (this.#provider.tokens()?.refresh_token === undefined) {
      throw this.#loginNeeded(NO_REFRESH_TOKEN_REASON);
    }
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(context.response);
    let outcome: string;
    try {
      outcome = await auth(this.#provider, {
        serverUrl: context.serverUrl,
        // Not the transport's fetch, which carries the entry's headers: those are for the MCP
        // server, never for its authorization server.
        fetchFn: boundedFetch(),
        ...(resourceMetadataUrl !== undefined ? { resourceMetadataUrl } : {}),
        ...(scope !== undefined ? { scope } : {}),
      });
    } catch (error) {
      if (error instanceof LoginNeededError) throw error;
      throw this.#loginNeeded(refreshFailedReason(error instanceof Error ? error.message : String(error)));
    }
    if (outcome !== 'AUTHORIZED') throw this.#loginNeeded(REFRESH_REFUSED_REASON);
  }

  #loginNeeded(why: string): LoginNeededError {
    return new LoginNeededError(loginNeededMessage(this.#options.server, this.#options.configFile, why));
  }
}
