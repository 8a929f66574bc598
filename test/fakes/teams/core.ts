/**
 * The fake Teams' servers and what tests read from it: the registration
 * (app id, password, tenant), the URLs that stand in for Microsoft's, the
 * people and conversations, what the bot sent, streams, faults and
 * waiters. The helpers that act like people are in index.ts.
 */
import { randomUUID } from 'node:crypto';
import type { OpContext } from './connector.js';
import { FileStore } from './files.js';
import type { BotRegistration, FakeIdentity } from './identity.js';
import { CONNECTOR_AUDIENCE } from './keys.js';
import { DEFAULT_LIMITS, type FakeTeamsLimits } from './limits.js';
import { type Activity, fileDownloadAttachment } from './payloads.js';
import type { FaultRule, RecordedCall } from './routes.js';
import { FakeTeamsServer } from './server.js';
import {
  type ChannelAccount,
  type ConversationType,
  type FakeConversation,
  FakeTeamsState,
  type StoredActivity,
} from './state.js';
import { type FakeStream, StreamBook } from './streaming.js';

/** Options of `startFakeTeams`. */
export interface FakeTeamsOptions {
  appId?: string;
  appPassword?: string;
  tenantId?: string;
  /** A multi-tenant registration: tokens come from `botframework.com` too (default false, as new registrations are single-tenant). */
  multiTenant?: boolean;
  /** The bot's display name (mentions show it). */
  botName?: string;
  /** Where activities are posted (`https://<host>/api/messages`); can be set later with `setBotEndpoint`. */
  botEndpoint?: string;
  limits?: Partial<FakeTeamsLimits>;
  /** Milliseconds for rate windows and streams (a VirtualClock's `now`); wall time by default. Token times always use wall time, as a bot checks them on it. */
  now?: () => number;
}

/** The fake's servers, state and inspection; {@link FakeTeams} adds the people. */
export class FakeTeamsCore {
  readonly appId: string;
  readonly appPassword: string;
  readonly tenantId: string;
  readonly botName: string;
  readonly limits: FakeTeamsLimits;
  readonly state: FakeTeamsState;
  readonly streams: StreamBook;
  readonly files = new FileStore();
  /** Every request the fake got, in order. */
  readonly calls: RecordedCall[] = [];
  protected readonly identity: FakeIdentity;
  protected readonly server: FakeTeamsServer;
  readonly #now: () => number;
  /** Ids of messages people sent (the bot may not edit or delete them). */
  protected readonly peopleMessages = new Set<string>();
  readonly #waiters: Array<() => void> = [];
  protected botEndpoint: string | undefined;

  /** Use `startFakeTeams` (index.ts). */
  constructor(identity: FakeIdentity, options: FakeTeamsOptions) {
    this.appId = options.appId ?? randomUUID();
    this.appPassword = options.appPassword ?? `secret-${randomUUID()}`;
    this.tenantId = options.tenantId ?? randomUUID();
    this.botName = options.botName ?? 'Switchboard';
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#now = options.now ?? (() => Date.now());
    this.botEndpoint = options.botEndpoint;
    this.identity = identity;
    this.state = new FakeTeamsState(() => Date.now());
    this.streams = new StreamBook(this.limits);
    const bot: BotRegistration = {
      appId: this.appId,
      appPassword: this.appPassword,
      tenantId: this.tenantId,
      multiTenant: options.multiTenant ?? false,
    };
    this.server = new FakeTeamsServer({
      identity,
      bot,
      limits: this.limits,
      now: this.#now,
      opContext: () => this.#opContext(),
      fileGet: (id) => this.files.downloads.get(id),
      fileUpload: (id, range, body) => this.files.receive(id, range, body),
      onCall: (call) => {
        this.calls.push(call);
        for (const wake of this.#waiters.splice(0)) wake();
      },
    });
  }

  /** @internal Starts listening. */
  async listen(): Promise<void> {
    await this.server.listen();
  }

  /** `http://127.0.0.1:<port>` */
  get baseUrl(): string {
    return this.server.base;
  }
  /** The Bot Connector's URL, as activities carry it (with the trailing slash, like the real one). */
  get serviceUrl(): string {
    return `${this.server.base}/teams/`;
  }
  /** The Bot Framework OpenID metadata (real: https://login.botframework.com/v1/.well-known/openidconfiguration). */
  get openIdMetadataUrl(): string {
    return `${this.server.base}/botframework/v1/.well-known/openidconfiguration`;
  }
  /** The key set the metadata's `jwks_uri` names. */
  get jwksUri(): string {
    return `${this.server.base}/botframework/v1/.well-known/keys`;
  }
  /** Stands in for https://login.microsoftonline.com: `${loginUrl}/<tenant>/oauth2/v2.0/token`. */
  get loginUrl(): string {
    return `${this.server.base}/login`;
  }
  /** The token endpoint for `tenant` (default the bot's tenant; multi-tenant bots use `botframework.com`). */
  tokenUrl(tenant = this.tenantId): string {
    return `${this.loginUrl}/${tenant}/oauth2/v2.0/token`;
  }
  /**
   * Asks the token endpoint for an access token the way a bot does (client
   * credentials, the connector's scope), for tests that call the connector
   * directly; `tenant` as in {@link tokenUrl}.
   */
  async accessToken(tenant = this.tenantId): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.appId,
      client_secret: this.appPassword,
      scope: `${CONNECTOR_AUDIENCE}/.default`,
    });
    const res = await fetch(this.tokenUrl(tenant), { method: 'POST', body: form });
    const body = (await res.json()) as { access_token?: string; error_description?: string };
    if (body.access_token === undefined)
      throw new Error(`No token for tenant ${tenant}: ${body.error_description}`);
    return body.access_token;
  }
  /** Faults to inject into connector calls (see {@link FaultRule}); push rules, they are used up in order. */
  get faults(): FaultRule[] {
    return this.server.faults;
  }
  /** Access tokens the token endpoint handed out. */
  get issuedTokens(): readonly string[] {
    return this.identity.issued;
  }
  /** The bot as activities name it. */
  get botAccount(): ChannelAccount {
    return { id: `28:${this.appId}`, name: this.botName };
  }

  /** Sets where inbound activities go. */
  setBotEndpoint(url: string): void {
    this.botEndpoint = url;
  }

  /** A new person. */
  person(name: string): ChannelAccount {
    return this.state.person(name);
  }
  /** A personal (one-on-one) chat with a new person named `name`, or with `who`. */
  personalChat(who: string | ChannelAccount): FakeConversation {
    const person = typeof who === 'string' ? this.person(who) : who;
    return this.state.addConversation('personal', this.tenantId, [person]);
  }
  /** A group chat of these people. */
  groupChat(people: ChannelAccount[], name?: string): FakeConversation {
    return this.conversation('groupChat', people, name);
  }
  /** A team channel with these people. */
  channel(people: ChannelAccount[], name = 'General'): FakeConversation {
    return this.conversation('channel', people, name);
  }
  /** Any kind of conversation. */
  conversation(type: ConversationType, people: ChannelAccount[], name?: string): FakeConversation {
    return this.state.addConversation(type, this.tenantId, people, name);
  }

  /** The bot's messages in a conversation as people see them now (updates applied, deletions gone). */
  messages(conversationId: string): StoredActivity[] {
    return this.state.messages(conversationId);
  }
  /** Every message the bot posted that Teams kept, in order (deleted ones included, marked). */
  get sent(): StoredActivity[] {
    return [...this.state.activities.values()];
  }
  /** The streams the bot opened, in order. */
  get allStreams(): FakeStream[] {
    return [...this.streams.streams.values()];
  }

  /** Resolves with the first kept message matching `match`, now or when it arrives. */
  waitForSent(match: (a: StoredActivity) => boolean): Promise<StoredActivity> {
    return this.#waitUntil(() => this.sent.find(match));
  }
  /** Resolves with the first recorded call matching `match`, now or when it arrives. */
  waitForCall(match: (c: RecordedCall) => boolean): Promise<RecordedCall> {
    return this.#waitUntil(() => this.calls.find(match));
  }

  /** The person pressed Stop on a streaming answer: Teams refuses its later updates. */
  cancelStream(streamId: string): void {
    this.streams.cancel(streamId);
  }

  /** Serves a file for download and returns the attachment Teams would put on a message carrying it. */
  attachFile(name: string, bytes: Buffer, contentType?: string): Activity {
    const file = this.files.serve(name, bytes, contentType);
    return fileDownloadAttachment(name, `${this.server.base}/files/download/${file.id}`, file.id);
  }
  /** Serves an inline image the way Teams does: on the service URL, behind the bot's token. */
  attachImage(bytes: Buffer, contentType = 'image/png'): Activity {
    const file = this.files.serve('image', bytes, contentType);
    return { contentType, contentUrl: `${this.serviceUrl}v3/attachments/${file.id}/views/original` };
  }

  /** Closes the server and every open connection. */
  async close(): Promise<void> {
    await this.server.close();
  }

  #opContext(): OpContext {
    return {
      state: this.state,
      streams: this.streams,
      files: this.files,
      appId: this.appId,
      now: this.#now(),
      peopleMessages: this.peopleMessages,
    };
  }

  #waitUntil<T>(find: () => T | undefined): Promise<T> {
    return new Promise((resolve) => {
      const check = () => {
        const found = find();
        if (found === undefined) this.#waiters.push(check);
        else resolve(found);
      };
      check();
    });
  }
}
