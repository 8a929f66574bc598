/**
 * Signing the bot in to HTTP MCP servers (the MCP authorization spec, by
 * the SDK's `auth()`): `/mcp login` gets the link, the authorization server
 * sends the browser back to {@link OAUTH_CALLBACK_PATH} on the bot's HTTP
 * port, and the code is exchanged there. The pending login is in the store,
 * so the callback may land on any replica.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { Clock } from '../../clock.js';
import { describeError, SwitchboardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { StoredOAuthProvider } from './provider.js';
import type { McpSignIns } from './sign-ins.js';

/** The path of the bot's HTTP port where authorization servers send the browser back. */
export const OAUTH_CALLBACK_PATH = '/mcp/oauth/callback';
/** The setting naming the bot's public base URL (the redirect URI is this plus the callback path). */
export const PUBLIC_URL_VARIABLE = 'SWITCHBOARD_PUBLIC_URL';

/** Options of {@link McpOAuth}. */
export interface McpOAuthOptions {
  signIns: McpSignIns;
  /** The HTTP servers that may be signed in to (the callback's state names one). */
  servers: readonly OAuthServer[];
  /** The bot's public base URL (SWITCHBOARD_PUBLIC_URL), as a browser reaches its HTTP port. */
  publicUrl: string;
  clock: Clock;
  logger: Logger;
  /** The fetch used to probe a server (tests); default the global one. */
  fetch?: typeof fetch;
}

/** An HTTP MCP server that may need signing in to. */
export interface OAuthServer {
  name: string;
  url: string;
}

/** Told of each finished sign-in: the server, and the chat that ran `/mcp login` (when known). */
export type SignedInListener = (server: string, chat: string | undefined) => void | Promise<void>;

/** What `/mcp login` gets back. */
export type LoginStart = { link: string } | { signedIn: true };

/** Sign-ins to HTTP MCP servers: links, callbacks, the providers the transports use. */
export class McpOAuth {
  readonly #o: McpOAuthOptions;
  readonly #listeners: SignedInListener[] = [];
  /** Each server's connection provider (one per server, so its challenge is remembered). */
  readonly #connecting = new Map<string, StoredOAuthProvider>();
  readonly redirectUrl: string;

  constructor(options: McpOAuthOptions) {
    this.#o = options;
    this.redirectUrl = new URL(OAUTH_CALLBACK_PATH, `${options.publicUrl.replace(/\/+$/, '')}/`).href;
  }

  /** Adds what happens once a login's code is exchanged (connect the server, tell the chat). */
  whenSignedIn(listener: SignedInListener): void {
    this.#listeners.push(listener);
  }

  /** The provider a server's transport uses: stored tokens, refreshed; never starts a login. */
  providerFor(server: OAuthServer): OAuthClientProvider {
    let provider = this.#connecting.get(server.name);
    if (!provider) {
      provider = this.#provider(server, 'connect');
      this.#connecting.set(server.name, provider);
    }
    return provider;
  }

  /**
   * Starts a login: asks the server what it needs (its 401 names the
   * resource metadata and scope), registers the bot where needed, and
   * returns the link to open. `signedIn` when the server lets the bot in
   * without one (no sign-in needed, or a stored token still works).
   */
  async begin(server: OAuthServer, chat?: string): Promise<LoginStart> {
    // What the connection was refused for, else what the server answers an `initialize` without a token.
    const challenge = this.#connecting.get(server.name)?.challenge ?? {};
    const probe = challenge.scope || challenge.resourceMetadataUrl ? challenge : await this.#probe(server);
    if (!probe) return { signedIn: true };
    const provider = this.#provider(server, 'login', { ...(chat === undefined ? {} : { chat }), ...probe });
    const result = await auth(provider, {
      serverUrl: server.url,
      ...(probe.resourceMetadataUrl ? { resourceMetadataUrl: new URL(probe.resourceMetadataUrl) } : {}),
      ...(probe.scope ? { scope: probe.scope } : {}),
      ...(this.#o.fetch ? { fetchFn: this.#o.fetch } : {}),
    });
    if (result === 'AUTHORIZED' || !provider.authorizationUrl) return { signedIn: true };
    return { link: provider.authorizationUrl.href };
  }

  /**
   * Finishes the login the callback's `state` names with its `code`;
   * returns the server's name. Throws a message for the browser when the
   * state is unknown or the authorization server refused.
   */
  async finish(params: URLSearchParams): Promise<string> {
    const state = params.get('state') ?? '';
    const name = Buffer.from(state.split('.')[0] ?? '', 'base64url').toString('utf8');
    const server = this.#o.servers.find((s) => s.name === name);
    const pending = server ? (await this.#o.signIns.read(server.name)).pending : undefined;
    if (!server || !pending || !sameText(pending.state, state))
      throw new SwitchboardError(
        'NOT_FOUND',
        'This sign-in link is not one the bot is waiting for (already used, or replaced by a newer /mcp login). Run /mcp login again.',
      );
    const error = params.get('error');
    if (error) {
      await this.#o.signIns.update(server.name, (r) => ({ ...r, pending: undefined }));
      throw new SwitchboardError(
        'PERMISSION_DENIED',
        `The sign-in to "${server.name}" was refused (${error.slice(0, 100)}). Run /mcp login ${server.name} to try again.`,
      );
    }
    const code = params.get('code');
    if (!code)
      throw new SwitchboardError('NOT_FOUND', 'The sign-in callback brought no code. Run /mcp login again.');
    const provider = this.#provider(server, 'login', pending);
    await auth(provider, {
      serverUrl: server.url,
      authorizationCode: code,
      ...(pending.resourceMetadataUrl ? { resourceMetadataUrl: new URL(pending.resourceMetadataUrl) } : {}),
      ...(pending.scope ? { scope: pending.scope } : {}),
      ...(this.#o.fetch ? { fetchFn: this.#o.fetch } : {}),
    });
    for (const listener of this.#listeners) {
      await Promise.resolve(listener(server.name, pending.chat)).catch((err: unknown) =>
        this.#o.logger.warn({ server: server.name, err: describeError(err) }, 'After an MCP sign-in'),
      );
    }
    return server.name;
  }

  /** Forgets the server's tokens, registered client and pending login; true when it had tokens. */
  async logout(server: string): Promise<boolean> {
    const had = (await this.#o.signIns.read(server)).tokens !== undefined;
    await this.#o.signIns.clear(server);
    return had;
  }

  /**
   * Serves {@link OAUTH_CALLBACK_PATH} (answers false for any other path):
   * a short page saying whether the sign-in worked. Nothing secret goes in
   * the page or the log.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://callback');
    if (url.pathname !== OAUTH_CALLBACK_PATH) return false;
    const send = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`${text}\n`);
    };
    if (req.method !== 'GET') {
      send(405, 'The sign-in callback answers GET only.');
      return true;
    }
    this.finish(url.searchParams).then(
      (name) => send(200, `Signed in to "${name}". You can close this page and go back to the chat.`),
      (err: unknown) => {
        this.#o.logger.warn({ err: describeError(err) }, 'MCP sign-in callback failed');
        send(
          err instanceof SwitchboardError ? 400 : 502,
          err instanceof SwitchboardError
            ? err.message
            : 'The sign-in failed; the bot log says why. Run /mcp login again.',
        );
      },
    );
    return true;
  }

  /** What the server's answer without a token asks for; undefined when it lets the bot in. */
  async #probe(server: OAuthServer): Promise<{ resourceMetadataUrl?: string; scope?: string } | undefined> {
    const fetchFn = this.#o.fetch ?? fetch;
    const tokens = await this.providerFor(server).tokens();
    const res = await fetchFn(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(tokens ? { authorization: `Bearer ${tokens.access_token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'switchboard', version: '1' },
        },
      }),
      signal: AbortSignal.timeout(30_000),
    });
    await res.body?.cancel();
    // A server that let the probe in may have opened a session for it: end it, as a client leaving does.
    const session = res.headers.get('mcp-session-id');
    if (res.ok && session)
      await fetchFn(server.url, {
        method: 'DELETE',
        headers: {
          'mcp-session-id': session,
          ...(tokens ? { authorization: `Bearer ${tokens.access_token}` } : {}),
        },
        signal: AbortSignal.timeout(5_000),
      })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    if (res.status !== 401 && res.status !== 403) return undefined;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
    return {
      ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}),
      ...(scope ? { scope } : {}),
    };
  }

  #provider(
    server: OAuthServer,
    mode: 'connect' | 'login',
    login?: { chat?: string; resourceMetadataUrl?: string; scope?: string },
  ): StoredOAuthProvider {
    return new StoredOAuthProvider({
      server: server.name,
      serverUrl: server.url,
      signIns: this.#o.signIns,
      redirectUrl: this.redirectUrl,
      clock: this.#o.clock,
      logger: this.#o.logger,
      mode,
      ...(login
        ? {
            login: {
              ...(login.chat === undefined ? {} : { chat: login.chat }),
              ...(login.resourceMetadataUrl ? { resourceMetadataUrl: login.resourceMetadataUrl } : {}),
              ...(login.scope ? { scope: login.scope } : {}),
            },
          }
        : {}),
    });
  }
}

/** Compares two texts in constant time (a state is a secret of the login). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
