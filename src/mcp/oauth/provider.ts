/**
 * The SDK's OAuthClientProvider over the sealed sign-in records: the SDK does
 * discovery (protected-resource and authorization-server metadata), dynamic
 * client registration, the authorization code with PKCE and refresh; this
 * keeps what it hands over.
 *
 * Two modes. A `connect` provider is the one a server's transport uses: it
 * sends the stored token, refreshes it shortly before it expires (and the SDK
 * refreshes on a 401), and when there is no token it only records that
 * sign-in is needed — a background reconnect must not start a login or
 * overwrite the verifier of one an admin started. A `login` provider is made
 * for one `/mcp login`: it keeps the verifier and state and captures the link.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { McpSignIns, PendingLogin } from './sign-ins.js';

/** A token this close to its expiry is refreshed before it is sent. */
export const REFRESH_AHEAD_MS = 60_000;

/** Options of {@link StoredOAuthProvider}. */
export interface StoredOAuthProviderOptions {
  /** The MCP server's name (the record's key). */
  server: string;
  /** The MCP server's URL (for a refresh ahead of expiry). */
  serverUrl: string;
  signIns: McpSignIns;
  /** Where the authorization server sends the browser back (the bot's callback). */
  redirectUrl: string;
  clock: Clock;
  logger: Logger;
  mode: 'connect' | 'login';
  /** For a login: what it remembers besides the verifier and state. */
  login?: Omit<PendingLogin, 'verifier' | 'state'>;
}

/** An OAuthClientProvider whose every credential lives in {@link McpSignIns}. */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #o: StoredOAuthProviderOptions;
  #state: string | undefined;
  #authorizationUrl: URL | undefined;
  #refreshing: Promise<unknown> | undefined;
  #challenge: { resourceMetadataUrl?: string; scope?: string } = {};
  /** The access token this provider last handed out, so it never forgets one it did not use. */
  #seen: string | undefined;

  constructor(options: StoredOAuthProviderOptions) {
    this.#o = options;
  }

  get redirectUrl(): string {
    return this.#o.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'switchboard',
      redirect_uris: [this.#o.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
  }

  /** The link a login captured (login mode), once the SDK has made it. */
  get authorizationUrl(): URL | undefined {
    return this.#authorizationUrl;
  }

  /** A fresh unguessable state per login; it names the server, so the callback finds the record. */
  state(): string {
    this.#state ??= `${Buffer.from(this.#o.server, 'utf8').toString('base64url')}.${randomBytes(24).toString('base64url')}`;
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    return (await this.#o.signIns.read(this.#o.server)).client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.#o.signIns.update(this.#o.server, (r) => ({ ...r, client }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const record = await this.#o.signIns.read(this.#o.server);
    const due =
      this.#o.mode === 'connect' &&
      record.tokens?.refresh_token !== undefined &&
      record.expiresAt !== undefined &&
      record.expiresAt - this.#o.clock.now() < REFRESH_AHEAD_MS;
    // While refreshing, the SDK asks again for the refresh token: answer from the record.
    this.#seen = record.tokens?.access_token;
    if (!due || this.#refreshing) return record.tokens;
    this.#refreshing = auth(this, { serverUrl: this.#o.serverUrl });
    try {
      await this.#refreshing;
    } catch (err) {
      this.#o.logger.warn(
        { server: this.#o.server, err: err instanceof Error ? err.message : String(err) },
        `The sign-in to MCP server "${this.#o.server}" could not be refreshed`,
      );
    } finally {
      this.#refreshing = undefined;
    }
    const tokens = (await this.#o.signIns.read(this.#o.server)).tokens;
    this.#seen = tokens?.access_token;
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const now = this.#o.clock.now();
    await this.#o.signIns.update(this.#o.server, (r) => ({
      ...r,
      tokens,
      expiresAt: tokens.expires_in === undefined ? undefined : now + tokens.expires_in * 1000,
      pending: undefined,
    }));
    this.#o.logger.info(
      { server: this.#o.server },
      `Signed in to MCP server "${this.#o.server}" (tokens saved)`,
    );
  }

  /**
   * What the server last asked for when it refused the connection (the
   * resource metadata its 401 named, the scope its 401 or 403 asked): the
   * next `/mcp login` asks for the same, even when the refusal came on a
   * later request than `initialize` or asked for more scope (step-up).
   */
  get challenge(): { resourceMetadataUrl?: string; scope?: string } {
    return this.#challenge;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    if (this.#o.mode === 'connect' && state.resourceMetadataUrl)
      this.#challenge = { ...this.#challenge, resourceMetadataUrl: state.resourceMetadataUrl };
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.#o.mode === 'login') {
      this.#authorizationUrl = authorizationUrl;
      return;
    }
    // A connection only learns that sign-in is needed (the SDK then throws UnauthorizedError).
    const scope = authorizationUrl.searchParams.get('scope');
    this.#challenge = { ...this.#challenge, ...(scope ? { scope } : {}) };
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    if (this.#o.mode !== 'login') return;
    const pending: PendingLogin = { ...this.#o.login, verifier, state: this.state() };
    await this.#o.signIns.update(this.#o.server, (r) => ({ ...r, pending }));
  }

  async codeVerifier(): Promise<string> {
    const pending = (await this.#o.signIns.read(this.#o.server)).pending;
    if (!pending) throw new Error(`no sign-in to "${this.#o.server}" is in progress`);
    return pending.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.#o.signIns.update(this.#o.server, (r) => {
      if (scope === 'all') return { pending: r.pending };
      if (scope === 'client') return { ...r, client: undefined };
      // Only the tokens this provider was refused: another replica may have saved newer ones
      // (its refresh used up the refresh token this one just tried).
      if (scope === 'tokens')
        return r.tokens?.access_token === this.#seen ? { ...r, tokens: undefined, expiresAt: undefined } : r;
      if (scope === 'verifier') return { ...r, pending: undefined };
      return r;
    });
  }
}
