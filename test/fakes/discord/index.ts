/**
 * A loopback Discord for the real discord.js client: REST under `/api/v10`
 * and a `ws` gateway on the same port. It keeps the current state of every
 * channel and message (what a user sees), records every REST call, enforces
 * Discord's limits (2000 characters, custom_id 100, 5 writes per 5 s per
 * channel answered with 429 + retry_after, the 3-second interaction
 * deadline), and has hooks to push gateway events and inject faults.
 *
 * @example
 * const fake = await startFakeDiscord();
 * const client = new Client({ intents, rest: { api: fake.apiUrl } });
 * await client.login(fake.token);
 * fake.userMessage({ channelId: fake.generalId, author: fake.user('alice'), content: `<@${fake.botUser.id}> hi` });
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGateway } from './gateway.js';
import {
  channelJson,
  type FakeActionRow,
  type FakeChannel,
  type FakeInteraction,
  type FakeMessage,
  type FakeUser,
  memberJson,
  messageJson,
  snowflake,
} from './model.js';
import { handleRest, type RestCall, rateLimited } from './rest.js';

export type { FakeActionRow, FakeChannel, FakeInteraction, FakeMessage, FakeUser } from './model.js';
export type { RestCall } from './rest.js';

/** Options for {@link startFakeDiscord}; limits are configurable so tests can run fast. */
export interface FakeDiscordOptions {
  token?: string;
  /** Message writes allowed per channel per window (Discord: 5 per 5 s). */
  rateLimit?: { count: number; windowMs: number };
  /** Interaction callbacks later than this answer 404 Unknown interaction (Discord: 3000). */
  interactionDeadlineMs?: number;
  heartbeatIntervalMs?: number;
  /** When false, IDENTIFY with the Message Content intent is closed with 4014. */
  messageContentAllowed?: boolean;
}

/** A fault: calls matching `route` (`'PATCH /channels/:id/messages/:id'` or a RegExp) misbehave. */
export interface FakeFault {
  route: string | RegExp;
  /** Answer with this status (429 carries retry_after). Without it the call proceeds after `delayMs`. */
  status?: number;
  retryAfterMs?: number;
  /** How many calls to affect (default: all). */
  times?: number;
  /** Share of matching calls affected, 0..1 (default 1). */
  share?: number;
  delayMs?: number;
  /** Destroy the connection instead of answering. */
  drop?: boolean;
}

/** The running fake; see {@link startFakeDiscord}. */
export class FakeDiscord {
  readonly token: string;
  readonly applicationId = snowflake();
  readonly guildId = snowflake();
  readonly generalId = snowflake();
  readonly botUser: FakeUser = { id: snowflake(), username: 'switchboard', discriminator: '0', bot: true };
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  /** Bulk-overwritten commands by scope (`global` or a guild id). */
  readonly commands = new Map<string, Record<string, unknown>[]>();
  readonly calls: RestCall[] = [];
  /** Uploaded files by attachment id, served under /attachments/. */
  readonly files = new Map<string, { contentType: string; data: Buffer }>();
  readonly faults: FakeFault[] = [];
  readonly gateway: FakeGateway;
  rateLimit: { count: number; windowMs: number };
  interactionDeadlineMs: number;
  heartbeatIntervalMs: number;
  messageContentAllowed: boolean;
  apiUrl = '';
  gatewayUrl = '';
  #server: Server;
  #writes = new Map<string, number[]>();
  #users = new Map<string, FakeUser>();
  #waiters = new Set<() => void>();

  constructor(options: FakeDiscordOptions = {}) {
    this.token = options.token ?? 'fake-discord-token.abc123';
    this.rateLimit = options.rateLimit ?? { count: 5, windowMs: 5000 };
    this.interactionDeadlineMs = options.interactionDeadlineMs ?? 3000;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
    this.messageContentAllowed = options.messageContentAllowed ?? true;
    this.channels.set(this.generalId, {
      id: this.generalId,
      type: 0,
      name: 'general',
      guild_id: this.guildId,
    });
    this.gateway = new FakeGateway(this);
    this.#server = createServer((req, res) => {
      if (req.url?.startsWith('/api/')) void handleRest(this, req, res);
      else if (req.url?.startsWith('/attachments/')) {
        const file = this.files.get(req.url.split('/')[2] ?? '');
        if (file) res.writeHead(200, { 'content-type': file.contentType }).end(file.data);
        else res.writeHead(404).end();
      } else res.writeHead(404).end();
    });
    this.#server.on('upgrade', (req, socket, head) => this.gateway.upgrade(req, socket, head));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.apiUrl = `http://127.0.0.1:${port}/api`;
    this.gatewayUrl = `ws://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A (cached) human user named `name`. */
  user(name: string): FakeUser {
    let user = this.#users.get(name);
    if (!user) {
      user = {
        id: snowflake(),
        username: name,
        global_name: name[0]!.toUpperCase() + name.slice(1),
        discriminator: '0',
      };
      this.#users.set(name, user);
    }
    return user;
  }

  /** Opens a DM channel between the bot and `user`. */
  dmChannel(user: FakeUser): FakeChannel {
    const channel: FakeChannel = { id: snowflake(), type: 1, recipients: [user] };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A person opens a thread of their own under `parentId`. */
  userThread(parentId: string, owner: FakeUser, name: string): FakeChannel {
    return this.createThread(parentId, name, undefined, 11, owner.id);
  }

  /** Messages of a channel in order, deleted ones left out. */
  channelMessages(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && !m.deleted);
  }

  /** Messages the bot wrote in a channel (interaction placeholders included). */
  botMessages(channelId: string): FakeMessage[] {
    return this.channelMessages(channelId).filter((m) => m.author.id === this.botUser.id);
  }

  /** Threads created under `parentId`. */
  threadsOf(parentId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.parent_id === parentId);
  }

  /** REST calls answered 429. */
  get rateLimitedCalls(): RestCall[] {
    return this.calls.filter((c) => c.status === 429);
  }

  /** Interaction callbacks that arrived after the deadline, summed. */
  get lateInteractionCallbacks(): number {
    return [...this.interactions.values()].reduce((n, i) => n + i.late, 0);
  }

  // ---- inbound: what people do -------------------------------------------

  /** A person posts `content` in a channel; `<@id>` mentions are parsed. */
  userMessage(input: {
    channelId: string;
    author: FakeUser;
    content: string;
    files?: { filename: string; contentType: string; data: Buffer }[];
  }): FakeMessage {
    const attachments = (input.files ?? []).map((f) => {
      const id = snowflake();
      const url = `${this.apiUrl.replace(/\/api$/, '')}/attachments/${id}/${encodeURIComponent(f.filename)}`;
      this.files.set(id, { contentType: f.contentType, data: f.data });
      return {
        id,
        filename: f.filename,
        size: f.data.length,
        url,
        proxy_url: url,
        content_type: f.contentType,
      };
    });
    return this.storeMessage({
      channelId: input.channelId,
      author: input.author,
      content: input.content,
      ...(attachments.length ? { attachments } : {}),
    });
  }

  /** A person edits their message. */
  editUserMessage(id: string, content: string): FakeMessage {
    const message = this.messages.get(id);
    if (!message) throw new Error(`no message ${id}`);
    this.updateMessage(message, { content });
    return message;
  }

  /** A person runs a slash command; returns the interaction. */
  slashCommand(input: {
    channelId: string;
    user: FakeUser;
    name: string;
    options?: Record<string, string>;
  }): FakeInteraction {
    const options = Object.entries(input.options ?? {}).map(([name, value]) => ({ name, type: 3, value }));
    const data = { id: snowflake(), name: input.name, type: 1, ...(options.length ? { options } : {}) };
    return this.#interact(2, input.channelId, input.user, data);
  }

  /** A person presses the button with `customId` on a message. */
  pressButton(input: { messageId: string; user: FakeUser; customId: string }): FakeInteraction {
    const message = this.messages.get(input.messageId);
    if (!message) throw new Error(`no message ${input.messageId}`);
    const has = message.components.some((row) => row.components.some((b) => b.custom_id === input.customId));
    if (!has) throw new Error(`message ${input.messageId} has no button ${input.customId}`);
    const interaction = this.#interact(
      3,
      message.channel_id,
      input.user,
      {
        custom_id: input.customId,
        component_type: 2,
      },
      message,
    );
    return interaction;
  }

  #interact(
    type: 2 | 3,
    channelId: string,
    user: FakeUser,
    data: Record<string, unknown>,
    message?: FakeMessage,
  ): FakeInteraction {
    const channel = this.channels.get(channelId);
    if (!channel) throw new Error(`no channel ${channelId}`);
    const interaction: FakeInteraction = {
      id: snowflake(),
      token: `itoken-${snowflake()}`,
      type,
      channelId,
      user,
      createdAt: Date.now(),
      callbacks: [],
      late: 0,
      ephemeral: false,
      followUpIds: [],
      ...(message ? { messageId: message.id } : {}),
    };
    this.interactions.set(interaction.id, interaction);
    const guild = channel.guild_id;
    this.gateway.dispatch('INTERACTION_CREATE', {
      id: interaction.id,
      application_id: this.applicationId,
      type,
      token: interaction.token,
      version: 1,
      data,
      channel_id: channelId,
      channel: channelJson(channel),
      ...(guild ? { guild_id: guild, member: memberJson(user) } : { user }),
      ...(message ? { message: messageJson(message) } : {}),
      app_permissions: '2147483647',
      locale: 'en-US',
      ...(guild ? { guild_locale: 'en-US' } : {}),
      entitlements: [],
      authorizing_integration_owners: {},
      context: guild ? 0 : 1,
      attachment_size_limit: 8_388_608,
    });
    this.changed();
    return interaction;
  }

  // ---- faults and waiting -------------------------------------------------

  /** Adds a fault; returns a function that removes it. */
  addFault(fault: FakeFault): () => void {
    this.faults.push(fault);
    return () => {
      const i = this.faults.indexOf(fault);
      if (i >= 0) this.faults.splice(i, 1);
    };
  }

  /** Resolves with the predicate's first truthy value, re-checked on every change of state. */
  waitFor<T>(
    predicate: () => T | undefined | false | null,
    what = 'condition',
    timeoutMs = 10_000,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        let value: T | undefined | false | null;
        try {
          value = predicate();
        } catch {
          return;
        }
        if (value) {
          this.#waiters.delete(check);
          clearTimeout(timer);
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`fake discord: timed out waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  // ---- used by the REST and gateway handlers ------------------------------

  /** Tells waiters that state changed. */
  changed(): void {
    for (const check of [...this.#waiters]) check();
  }

  /** @internal Runs the first matching fault, if any. */
  async applyFault(
    call: RestCall,
  ): Promise<{ status: number; body?: unknown; headers?: Record<string, string> } | 'drop' | undefined> {
    const key = `${call.method} ${call.route}`;
    const fault = this.faults.find(
      (f) =>
        (f.times ?? Number.POSITIVE_INFINITY) > 0 &&
        (typeof f.route === 'string' ? f.route === key : f.route.test(key)) &&
        Math.random() < (f.share ?? 1),
    );
    if (!fault) return undefined;
    if (fault.times !== undefined) fault.times -= 1;
    if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.drop) return 'drop';
    if (fault.status === 429) return rateLimited({ retryAfterMs: fault.retryAfterMs ?? 1000, headers: {} });
    if (fault.status) return { status: fault.status, body: { code: 0, message: `injected ${fault.status}` } };
    return undefined;
  }

  /** @internal Counts a message write against the channel's window. */
  takeRate(channelId: string): { retryAfterMs: number; headers: Record<string, string> } {
    const now = Date.now();
    const { count, windowMs } = this.rateLimit;
    const recent = (this.#writes.get(channelId) ?? []).filter((t) => t > now - windowMs);
    this.#writes.set(channelId, recent);
    const resetAfter = (oldest: number) => Math.max(0, oldest + windowMs - now) / 1000;
    const base = { 'x-ratelimit-limit': String(count), 'x-ratelimit-bucket': `messages-${channelId}` };
    if (recent.length >= count) {
      const after = resetAfter(recent[0]!);
      return {
        retryAfterMs: Math.max(1, Math.ceil(after * 1000)),
        headers: { ...base, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': after.toFixed(3) },
      };
    }
    recent.push(now);
    return {
      retryAfterMs: 0,
      headers: {
        ...base,
        'x-ratelimit-remaining': String(count - recent.length),
        'x-ratelimit-reset-after': resetAfter(recent[0]!).toFixed(3),
      },
    };
  }

  /** @internal Stores a new message and dispatches MESSAGE_CREATE. */
  storeMessage(input: {
    channelId: string;
    author: FakeUser;
    content: string;
    components?: FakeActionRow[];
    flags?: number;
    reference?: FakeMessage['message_reference'];
    interactionId?: string;
    attachments?: FakeMessage['attachments'];
  }): FakeMessage {
    const channel = this.channels.get(input.channelId);
    const message: FakeMessage = {
      id: snowflake(),
      channel_id: input.channelId,
      ...(channel?.guild_id ? { guild_id: channel.guild_id } : {}),
      author: input.author,
      content: input.content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      components: input.components ?? [],
      flags: input.flags ?? 0,
      mentions: this.#mentions(input.content),
      history: [input.content],
      ...(input.attachments ? { attachments: input.attachments } : {}),
      ...(input.reference ? { message_reference: input.reference } : {}),
      ...(input.interactionId ? { interactionId: input.interactionId, webhook_id: this.applicationId } : {}),
    };
    this.messages.set(message.id, message);
    if ((message.flags & 64) === 0) this.gateway.dispatch('MESSAGE_CREATE', this.#withMember(message));
    this.changed();
    return message;
  }

  /** @internal Applies an edit body and dispatches MESSAGE_UPDATE. */
  updateMessage(message: FakeMessage, body: Record<string, unknown>): void {
    if (typeof body.content === 'string') {
      message.content = body.content;
      message.mentions = this.#mentions(body.content);
      message.history.push(body.content);
    }
    if (Array.isArray(body.components)) message.components = body.components as FakeActionRow[];
    message.edited_timestamp = new Date().toISOString();
    if ((message.flags & 64) === 0) this.gateway.dispatch('MESSAGE_UPDATE', this.#withMember(message));
    this.changed();
  }

  /** @internal Creates a thread (from a starter message: same id) and dispatches THREAD_CREATE. */
  createThread(
    parentId: string,
    name: string,
    starterId: string | undefined,
    type: number,
    ownerId = this.botUser.id,
  ): FakeChannel {
    const parent = this.channels.get(parentId);
    const thread: FakeChannel = {
      id: starterId ?? snowflake(),
      type,
      name: name.slice(0, 100),
      parent_id: parentId,
      owner_id: ownerId,
      ...(parent?.guild_id ? { guild_id: parent.guild_id } : {}),
    };
    this.channels.set(thread.id, thread);
    this.gateway.dispatch('THREAD_CREATE', { ...channelJson(thread), newly_created: true });
    this.changed();
    return thread;
  }

  #withMember(message: FakeMessage): Record<string, unknown> {
    const json = messageJson(message);
    // Gateway message events carry the channel type (discord.js needs it to build an uncached DM channel).
    const channel = this.channels.get(message.channel_id);
    if (channel) json.channel_type = channel.type;
    if (message.guild_id && !message.author.bot)
      json.member = { ...memberJson(message.author), user: undefined };
    return json;
  }

  #mentions(content: string): FakeUser[] {
    const ids = [...content.matchAll(/<@!?(\d+)>/g)].map((m) => m[1]);
    const known = [this.botUser, ...this.#users.values()];
    return known.filter((u) => ids.includes(u.id));
  }
}

/** Starts a fake Discord on 127.0.0.1 (random port). */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const fake = new FakeDiscord(options);
  await fake.listen();
  return fake;
}
