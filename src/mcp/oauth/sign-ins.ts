/**
 * The MCP sign-in records: per server, the tokens, the client the bot
 * registered (dynamic client registration) and a login in progress (PKCE
 * verifier and state). Each record is sealed with the {@link SecretBox} before
 * it reaches the store, and read afresh each time, so a replica sees a token
 * another one saved.
 */
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describeError } from '../../errors.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { McpCredentialStore } from './credential-store.js';
import type { SecretBox } from './secret-box.js';

/** A login started by `/mcp login`, until its callback arrives. */
export interface PendingLogin {
  /** The PKCE code verifier (RFC 7636) of the authorization request. */
  verifier: string;
  /** The `state` sent with it; the callback must bring it back. */
  state: string;
  /** The chat that asked, told when the sign-in is done. */
  chat?: string;
  /** What the server's 401 asked for, needed again to exchange the code. */
  resourceMetadataUrl?: string;
  scope?: string;
}

/** Everything kept for one server. */
export interface SignInRecord {
  tokens?: OAuthTokens | undefined;
  /** When the access token expires (ms since the epoch), from `expires_in`. */
  expiresAt?: number | undefined;
  client?: OAuthClientInformationMixed | undefined;
  pending?: PendingLogin | undefined;
}

/** Sealed records over a credential store. */
export class McpSignIns {
  readonly #store: McpCredentialStore;
  readonly #box: SecretBox;
  /** One change at a time per server in this process, so two saves do not drop each other's fields. */
  readonly #chains = new Map<string, Promise<unknown>>();

  readonly #logger: Logger;

  constructor(store: McpCredentialStore, box: SecretBox, logger: Logger = silentLogger) {
    this.#store = store;
    this.#box = box;
    this.#logger = logger;
  }

  /**
   * The server's record; empty when there is none, and when it cannot be
   * opened (sealed under another key): then the server needs a new
   * `/mcp login`, whose record replaces the unreadable one.
   */
  async read(server: string): Promise<SignInRecord> {
    const sealed = await this.#store.get(server);
    if (sealed === undefined) return {};
    try {
      return JSON.parse(this.#box.open(sealed)) as SignInRecord;
    } catch (err) {
      this.#logger.warn(
        { server, err: describeError(err) },
        `The stored sign-in to MCP server "${server}" is unreadable`,
      );
      return {};
    }
  }

  /** Applies `change` to the server's record and saves it (deleted when nothing is left). */
  update(server: string, change: (record: SignInRecord) => SignInRecord): Promise<void> {
    const next = (this.#chains.get(server) ?? Promise.resolve()).then(async () => {
      const record = change(await this.read(server));
      const empty = Object.values(record).every((v) => v === undefined);
      if (empty) await this.#store.delete(server);
      else await this.#store.set(server, this.#box.seal(JSON.stringify(record)));
    });
    this.#chains.set(
      server,
      next.catch(() => undefined),
    );
    return next;
  }

  /** Forgets everything kept for the server. */
  clear(server: string): Promise<void> {
    return this.update(server, () => ({}));
  }
}
