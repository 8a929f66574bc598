/**
 * A loopback fake of Microsoft Teams for a bot: the Bot Connector (its
 * serviceUrl), the Bot Framework's OpenID metadata and keys, the Entra
 * token endpoint, OneDrive uploads and file downloads; plus helpers that
 * act like people (write, mention, press a card button, accept a file) and
 * post what Teams would post to the bot's messaging endpoint, with a valid
 * JWT or a broken one. See README.md beside this file.
 *
 * @example
 * const teams = await startFakeTeams({ botEndpoint: 'http://127.0.0.1:3978/api/messages' });
 * const chat = teams.personalChat('Ada');
 * await teams.userMessage(chat, 'hello');
 * await teams.waitForSent((a) => a.activity.type === 'message');
 */
import { randomUUID } from 'node:crypto';
import type { OpContext } from './connector.js';
import { type BotAnswer, type InboundAuth, inboundToken, postToBot } from './deliver.js';
import { FileStore, type UploadSession } from './files.js';
import { type BotRegistration, FakeIdentity } from './identity.js';
import { cardActionAnswerProblem } from './invoke.js';
import { DEFAULT_LIMITS, type FakeTeamsLimits } from './limits.js';
import {
  type Activity,
  cardActionInvoke,
  cardSubmitMessage,
  type Envelope,
  fileConsentInvoke,
  fileDownloadAttachment,
  type MessageOptions,
  membersAdded,
  messageActivity,
} from './payloads.js';
import { FakeTeamsServer, type FaultRule, type RecordedCall } from './server.js';
import {
  type ChannelAccount,
  type ConversationType,
  type FakeConversation,
  FakeTeamsState,
  type StoredActivity,
} from './state.js';
import { type FakeStream, StreamBook } from './streaming.js';

export { type BotAnswer, BROKEN_TOKENS, type InboundAuth } from './deliver.js';
export { cardActionAnswerProblem } from './invoke.js';
export { CONNECTOR_AUDIENCE, CONNECTOR_ISSUER } from './keys.js';
export { DEFAULT_LIMITS, type FakeTeamsLimits, messageBytes } from './limits.js';
export type { Activity } from './payloads.js';
export type { FaultRule, Operation, RecordedCall } from './server.js';
export type { ChannelAccount, FakeConversation, StoredActivity } from './state.js';
export type { FakeStream } from './streaming.js';

/** Options of {@link startFakeTeams}. */
export interface FakeTeamsOptions {
  appId?: string;
  appPassword?: string;
  tenantId?: string;
  /** The bot's display name (mentions show it). */
  botName?: string;
  /** Where activities are posted (`https://<host>/api/messages`); can be set later with `setBotEndpoint`. */
  botEndpoint?: string;
  limits?: Partial<FakeTeamsLimits>;
  /** Milliseconds for rate windows and streams (a VirtualClock's `now`); wall time by default. Token times always use wall time, as a bot checks them on it. */
  now?: () => number;
}

/** Options of one inbound post. */
export interface PostOptions {
  /** The token to put on it (default a valid one). */
  auth?: InboundAuth;
}

/** The running fake. */
export class FakeTeams {
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
  readonly #identity: FakeIdentity;
  readonly #server: FakeTeamsServer;
  readonly #now: () => number;
  readonly #peopleMessages = new Set<string>();
  readonly #waiters: Array<() => void> = [];
  #botEndpoint: string | undefined;

  /** Use {@link startFakeTeams}. */
  constructor(identity: FakeIdentity, options: FakeTeamsOptions) {
    this.appId = options.appId ?? randomUUID();
    this.appPassword = options.appPassword ?? `secret-${randomUUID()}`;
    this.tenantId = options.tenantId ?? randomUUID();
    this.botName = options.botName ?? 'Switchboard';
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#now = options.now ?? (() => Date.now());
    this.#botEndpoint = options.botEndpoint;
    this.#identity = identity;
    this.state = new FakeTeamsState(() => Date.now());
    this.streams = new StreamBook(this.limits);
    const bot: BotRegistration = {
      appId: this.appId,
      appPassword: this.appPassword,
      tenantId: this.tenantId,
    };
    this.#server = new FakeTeamsServer({
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
    await this.#server.listen();
  }

  /** `http://127.0.0.1:<port>` */
  get baseUrl(): string {
    return this.#server.base;
  }
  /** The Bot Connector's URL, as activities carry it (with the trailing slash, like the real one). */
  get serviceUrl(): string {
    return `${this.#server.base}/teams/`;
  }
  /** The Bot Framework OpenID metadata (real: https://login.botframework.com/v1/.well-known/openidconfiguration). */
  get openIdMetadataUrl(): string {
    return `${this.#server.base}/botframework/v1/.well-known/openidconfiguration`;
  }
  /** The key set the metadata's `jwks_uri` names. */
  get jwksUri(): string {
    return `${this.#server.base}/botframework/v1/.well-known/keys`;
  }
  /** Stands in for https://login.microsoftonline.com: `${loginUrl}/<tenant>/oauth2/v2.0/token`. */
  get loginUrl(): string {
    return `${this.#server.base}/login`;
  }
  /** The token endpoint for `tenant` (default the bot's tenant; multi-tenant bots use `botframework.com`). */
  tokenUrl(tenant = this.tenantId): string {
    return `${this.loginUrl}/${tenant}/oauth2/v2.0/token`;
  }
  /** Faults to inject into connector calls (see {@link FaultRule}); push rules, they are used up in order. */
  get faults(): FaultRule[] {
    return this.#server.faults;
  }
  /** Access tokens the token endpoint handed out. */
  get issuedTokens(): readonly string[] {
    return this.#identity.issued;
  }
  /** The bot as activities name it. */
  get botAccount(): ChannelAccount {
    return { id: `28:${this.appId}`, name: this.botName };
  }

  /** Sets where inbound activities go. */
  setBotEndpoint(url: string): void {
    this.#botEndpoint = url;
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
    return fileDownloadAttachment(name, `${this.#server.base}/files/download/${file.id}`, file.id);
  }
  /** Serves an inline image the way Teams does: on the service URL, behind the bot's token. */
  attachImage(bytes: Buffer, contentType = 'image/png'): Activity {
    const file = this.files.serve('image', bytes, contentType);
    return { contentType, contentUrl: `${this.serviceUrl}v3/attachments/${file.id}/views/original` };
  }

  /** A person writes in a conversation (in a channel: a new thread, or `threadRootId`'s). */
  async userMessage(
    conversation: FakeConversation,
    text: string,
    options: Omit<MessageOptions, 'text'> &
      PostOptions & { from?: ChannelAccount; threadRootId?: string } = {},
  ): Promise<{ answer: BotAnswer; activity: Activity }> {
    const env = this.#envelope(conversation, options.from, options.threadRootId);
    const activity = messageActivity(env, { ...options, text });
    this.#peopleMessages.add(env.id);
    return { answer: await this.post(activity, options), activity };
  }
  /**
   * A person presses an Action.Execute button (`adaptiveCard/action` invoke)
   * on the bot's message `messageId`. `problem` says why Teams would not
   * take the bot's answer (late, not HTTP 200, not an invoke response).
   */
  async cardAction(
    conversation: FakeConversation,
    messageId: string,
    verb: string,
    data: Activity = {},
    options: PostOptions & { from?: ChannelAccount } = {},
  ) {
    const activity = cardActionInvoke(
      this.#envelope(conversation, options.from, this.#rootOf(conversation, messageId)),
      messageId,
      verb,
      data,
    );
    const answer = await this.post(activity, options);
    return { answer, activity, problem: cardActionAnswerProblem(answer, this.limits.invokeDeadlineMs) };
  }
  /** A person presses an Action.Submit button: a message with the data as `value`. */
  async cardSubmit(
    conversation: FakeConversation,
    messageId: string,
    data: Activity,
    options: PostOptions & { from?: ChannelAccount } = {},
  ) {
    const activity = cardSubmitMessage(
      this.#envelope(conversation, options.from, this.#rootOf(conversation, messageId)),
      messageId,
      data,
    );
    return { answer: await this.post(activity, options), activity };
  }
  /** The bot is added to a conversation (installation in a personal chat, team or group chat). */
  async botAdded(conversation: FakeConversation, options: PostOptions & { from?: ChannelAccount } = {}) {
    const activity = membersAdded(this.#envelope(conversation, options.from), [this.botAccount]);
    return { answer: await this.post(activity, options), activity };
  }
  /**
   * A person answers the bot's file consent card `messageId`: on accept the
   * fake opens an upload session (`upload.bytes` fills when the bot PUTs).
   */
  async fileConsent(
    conversation: FakeConversation,
    messageId: string,
    action: 'accept' | 'decline',
    options: PostOptions = {},
  ) {
    const card = this.state.find(conversation.id, messageId);
    const attachment = (card?.activity.attachments as Activity[] | undefined)?.[0];
    const name = typeof attachment?.name === 'string' ? attachment.name : 'file';
    const context = (attachment?.content as Activity | undefined)?.acceptContext;
    let upload: UploadSession | undefined;
    if (action === 'accept') upload = this.files.openUpload(name);
    const info =
      upload === undefined
        ? undefined
        : {
            name,
            uploadUrl: `${this.#server.base}/files/upload/${upload.fileId}`,
            contentUrl: `${this.#server.base}/files/download/${upload.fileId}`,
            uniqueId: upload.uniqueId,
            fileId: upload.fileId,
          };
    const activity = fileConsentInvoke(this.#envelope(conversation), messageId, action, context, info);
    return { answer: await this.post(activity, options), activity, upload };
  }

  /** Posts any activity to the bot's endpoint with a valid token, or the broken one `auth` names. */
  async post(activity: Activity, options: PostOptions = {}): Promise<BotAnswer> {
    if (this.#botEndpoint === undefined)
      throw new Error('No bot endpoint: pass botEndpoint to startFakeTeams or call setBotEndpoint(url)');
    const serviceUrl = typeof activity.serviceUrl === 'string' ? activity.serviceUrl : this.serviceUrl;
    const token = await inboundToken(this.#identity, options.auth ?? 'valid', {
      appId: this.appId,
      serviceUrl,
      nowSec: Math.floor(Date.now() / 1000),
      lifetimeSec: this.limits.tokenLifetimeSec,
    });
    return postToBot(this.#botEndpoint, activity, token, this.limits.invokeDeadlineMs);
  }

  /** Signs a connector token as `auth` says, for bots' JWT checks tested without HTTP. */
  inboundToken(auth: InboundAuth = 'valid', serviceUrl = this.serviceUrl): Promise<string | undefined> {
    return inboundToken(this.#identity, auth, {
      appId: this.appId,
      serviceUrl,
      nowSec: Math.floor(Date.now() / 1000),
      lifetimeSec: this.limits.tokenLifetimeSec,
    });
  }

  /** Closes the server and every open connection. */
  async close(): Promise<void> {
    await this.#server.close();
  }

  #envelope(conversation: FakeConversation, from?: ChannelAccount, threadRootId?: string): Envelope {
    const env: Envelope = {
      id: this.state.nextId(),
      serviceUrl: this.serviceUrl,
      conversation,
      from: from ?? (conversation.members[0] as ChannelAccount),
      bot: { appId: this.appId, name: this.botName },
      timestamp: new Date().toISOString(),
    };
    if (threadRootId !== undefined) env.threadRootId = threadRootId;
    return env;
  }

  #rootOf(conversation: FakeConversation, messageId: string): string | undefined {
    if (conversation.type !== 'channel') return undefined;
    return this.state.find(conversation.id, messageId)?.conversationId.split(';messageid=')[1] ?? messageId;
  }

  #opContext(): OpContext {
    return {
      state: this.state,
      streams: this.streams,
      files: this.files,
      appId: this.appId,
      now: this.#now(),
      peopleMessages: this.#peopleMessages,
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

/** Starts a fake Teams on a random loopback port. */
export async function startFakeTeams(options: FakeTeamsOptions = {}): Promise<FakeTeams> {
  const teams = new FakeTeams(await FakeIdentity.create(), options);
  await teams.listen();
  return teams;
}
