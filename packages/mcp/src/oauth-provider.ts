/**
 * The MCP SDK's OAuth client provider over one token file (token-file.ts): what the SDK's `auth()`
 * reads and saves while it discovers the authorization server, registers a client, sends a person
 * to authorize, exchanges the code and refreshes. Login and the bridge use it alike, with one
 * difference: login sends the person to the authorization page (its `onRedirect`), while the bridge,
 * spawned over stdio with nobody at a terminal, cannot, so a flow that needs a person ends there with
 * LoginNeededError, whose sentence names the login command.
 */
import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthConfig } from './config.ts';
import type { StoredAuthorization } from './token-file.ts';

/** A flow that needs a person to authorize, reached where none can: the bridge. */
export class LoginNeededError extends Error {
  override name = 'LoginNeededError';
}

/** The redirect of a flow that never sends anyone anywhere: the bridge refreshes, it never redirects. */
const NO_REDIRECT = 'http://127.0.0.1/callback';

export interface TokenFileProviderOptions {
  readonly oauth: OAuthConfig;
  /** What the file held when the flow began (login starts from nothing: a new authorization). */
  readonly stored: StoredAuthorization;
  /** Login's loopback address; the bridge's flows use the one login stored. */
  readonly redirectUrl?: string;
  /** Login: shows the person the authorization page. Absent, a redirect throws `loginNeeded()`. */
  readonly onRedirect?: (authorizationUrl: URL) => void;
  /** The bridge: the sentence to throw when the flow needs a person. */
  readonly loginNeeded: () => LoginNeededError;
  /** Called after every change the SDK saves (the bridge writes the file; login writes it at the end). */
  readonly onSave?: (stored: StoredAuthorization) => Promise<void>;
}

export class TokenFileProvider implements OAuthClientProvider {
  readonly #options: TokenFileProviderOptions;
  #stored: StoredAuthorization;
  #codeVerifier: string | undefined;
  /** The state login's authorization request carried; the redirect must bring it back. */
  readonly #state = randomBytes(32).toString('base64url');

  constructor(options: TokenFileProviderOptions) {
    this.#options = options;
    this.#stored = { ...options.stored };
    const redirectUrl = options.redirectUrl ?? options.stored.redirectUrl;
    if (redirectUrl !== undefined) this.#stored.redirectUrl = redirectUrl;
  }

  /** Everything to write to the token file. */
  get stored(): StoredAuthorization {
    return this.#stored;
  }

  get expectedState(): string {
    return this.#state;
  }

  /** The access token a request carries now, if any. */
  get accessToken(): string | undefined {
    return this.#stored.tokens?.access_token;
  }

  /** Takes what another writer left in the file (a login, another bridge's refresh). */
  adopt(stored: StoredAuthorization): void {
    const redirectUrl = stored.redirectUrl ?? this.#stored.redirectUrl;
    this.#stored = { ...stored, ...(redirectUrl !== undefined ? { redirectUrl } : {}) };
  }

  get redirectUrl(): string {
    return this.#stored.redirectUrl ?? NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { scope } = this.#options.oauth;
    return {
      client_name: 'codemode-mcp',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A program on a person's machine keeps no secret; PKCE stands in for one.
      token_endpoint_auth_method: 'none',
      ...(scope !== undefined ? { scope } : {}),
    };
  }

  state(): string {
    return this.#state;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const { clientId } = this.#options.oauth;
    const client = this.#stored.client as StoredOAuthClientInformation | undefined;
    if (clientId === undefined || client?.client_id === clientId) return client;
    return { client_id: clientId };
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    this.#stored = { ...this.#stored, client };
    await this.#options.onSave?.(this.#stored);
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#stored.tokens as StoredOAuthTokens | undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    // A refresh answered without a new refresh token leaves the old one good (RFC 6749, 6).
    const previous = this.#stored.tokens?.refresh_token;
    const refresh_token = tokens.refresh_token ?? (typeof previous === 'string' ? previous : undefined);
    this.#stored = {
      ...this.#stored,
      tokens: { ...tokens, ...(refresh_token !== undefined ? { refresh_token } : {}) },
    };
    await this.#options.onSave?.(this.#stored);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.#options.onRedirect === undefined) throw this.#options.loginNeeded();
    this.#options.onRedirect(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw this.#options.loginNeeded();
    return this.#codeVerifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    this.#stored = { ...this.#stored, discovery: discovery as StoredAuthorization['discovery'] };
    await this.#options.onSave?.(this.#stored);
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#stored.discovery as OAuthDiscoveryState | undefined;
  }

  /**
   * The SDK drops what the server says is no longer good, then starts the flow again. Tokens go
   * (the bridge then ends at loginNeeded); the client stays, or the flow would register a new
   * one without a person; nothing is written, since only a login replaces the file's tokens.
   */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') {
      const { tokens: _dropped, ...rest } = this.#stored;
      this.#stored = rest;
    }
    if (scope === 'all' || scope === 'discovery') {
      const { discovery: _dropped, ...rest } = this.#stored;
      this.#stored = rest;
    }
    if (scope === 'all' || scope === 'verifier') this.#codeVerifier = undefined;
  }
}
