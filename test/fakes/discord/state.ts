/**
 * The fake Discord's state and the operations the REST and gateway handlers
 * share: stored channels and messages, the per-channel rate window, faults,
 * and waiting for a change of state.
 */
import { seededRandom } from '../telegram/limits.js';
import { FakeGateway } from './gateway.js';
import { type AllowedMentionsBody, discordPings } from './mentions.js';
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
  snowflakeOnShard,
} from './model.js';
import { type RestCall, rateLimited } from './rest.js';
import { DISCORD_UPLOAD_LIMIT } from './uploads.js';

/** Options for {@link startFakeDiscord}; limits are configurable so tests can run fast. */
export interface FakeDiscordOptions {
  token?: string;
  /** Seed of the source that picks which calls a `share` fault hits, so a run is repeatable (default 1). */
  seed?: number;
  /** Message writes allowed per channel per window (Discord: 5 per 5 s). */
  rateLimit?: { count: number; windowMs: number };
  /** Interaction callbacks later than this answer 404 Unknown interaction (Discord: 3000). */
  interactionDeadlineMs?: number;
  heartbeatIntervalMs?: number;
  /** When false, IDENTIFY with the Message Content intent is closed with 4014. */
  messageContentAllowed?: boolean;
  /** Largest file a message may carry (Discord's default for bots: 10 MiB); larger answers 413, code 40005. */
  maxUploadBytes?: number;
  /**
   * Record which local process made each REST call and opened each gateway
   * session (`RestCall.pid`, `gateway.log[].pid`), e.g. to tell shard
   * processes apart. Linux only; off by default (it scans /proc).
   */
  trackProcesses?: boolean;
}

/** A fault: calls matching `route` (`'PATCH /channels/:id/messages/:id'` or a RegExp) misbehave. */
export interface FakeFault {
  route: string | RegExp;
  /** Answer with this status (429 carries retry_after). Without it the call proceeds after `delayMs`. */
  status?: number;
  retryAfterMs?: number;
  /**
   * With status 429: the bot's global limit, not the route's. Discord then
   * sends `X-RateLimit-Global`, `X-RateLimit-Scope: global` and
   * `global: true` in the body (https://discord.com/developers/docs/topics/rate-limits#header-format).
   */
  global?: boolean;
  /** How many calls to affect (default: all). */
  times?: number;
  /** Share of matching calls affected, 0..1 (default 1). */
  share?: number;
  delayMs?: number;
  /** Destroy the connection instead of answering. */
  drop?: boolean;
  /** A lost answer: the request is taken and never answered, the connection left open until the client gives up or the fake closes (what a half-open connection or a stuck proxy looks like to a client). */
  hang?: boolean;
}

/** State of a fake Discord; {@link FakeDiscord} adds the server and what people do. */
export class FakeDiscordState {
  readonly token: string;
  readonly applicationId = snowflake();
  readonly guildId = snowflake();
  readonly generalId = snowflake();
  readonly botUser: FakeUser = { id: snowflake(), username: 'switchboard', discriminator: '0', bot: true };
  /** Guilds the bot is in, id -> name; the first is {@link guildId}. */
  readonly guilds = new Map<string, string>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  /** Bulk-overwritten commands by scope (`global` or a guild id). */
  readonly commands = new Map<string, Record<string, unknown>[]>();
  readonly calls: RestCall[] = [];
  /** Uploaded files by attachment id, served under /attachments/. */
  readonly files = new Map<string, { contentType: string; data: Buffer; stall?: boolean }>();
  /** How many times each attachment id was downloaded. */
  readonly downloads = new Map<string, number>();
  readonly faults: FakeFault[] = [];
  readonly gateway: FakeGateway;
  rateLimit: { count: number; windowMs: number };
  maxUploadBytes: number;
  interactionDeadlineMs: number;
  heartbeatIntervalMs: number;
  messageContentAllowed: boolean;
  readonly trackProcesses: boolean;
  apiUrl = '';
  gatewayUrl = '';
  #writes = new Map<string, number[]>();
  protected readonly users = new Map<string, FakeUser>();
  /** Ids of users who do not accept DMs from the bot (Discord answers 50007). */
  readonly closedDms = new Set<string>();
  #waiters = new Set<() => void>();
  readonly #random: () => number;

  constructor(options: FakeDiscordOptions = {}) {
    this.#random = seededRandom(options.seed ?? 1);
    this.token = options.token ?? 'fake-discord-token.abc123';
    this.rateLimit = options.rateLimit ?? { count: 5, windowMs: 5000 };
    this.interactionDeadlineMs = options.interactionDeadlineMs ?? 3000;
    this.maxUploadBytes = options.maxUploadBytes ?? DISCORD_UPLOAD_LIMIT;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 41_250;
    this.messageContentAllowed = options.messageContentAllowed ?? true;
    this.trackProcesses = options.trackProcesses ?? false;
    this.guilds.set(this.guildId, 'Fake Guild');
    this.channels.set(this.generalId, {
      id: this.generalId,
      type: 0,
      name: 'general',
      guild_id: this.guildId,
    });
    this.gateway = new FakeGateway(this);
  }

  /**
   * Adds a guild with a #general text channel. `shard: [id, count]` picks a
   * guild id that Discord routes to that shard. Shards already connected do
   * not hear of it: add guilds before the client identifies.
   */
  addGuild(options: { name?: string; shard?: [number, number] } = {}): { id: string; generalId: string } {
    const id = options.shard ? snowflakeOnShard(...options.shard) : snowflake();
    const generalId = snowflake();
    this.guilds.set(id, options.name ?? 'Fake Guild');
    this.channels.set(generalId, { id: generalId, type: 0, name: 'general', guild_id: id });
    return { id, generalId };
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

  /** Every user the fake knows: the bot and the people tests created. */
  knownUsers(): FakeUser[] {
    return [this.botUser, ...this.users.values()];
  }

  /** Tells waiters that state changed. */
  changed(): void {
    for (const check of [...this.#waiters]) check();
  }

  /** @internal Runs the first matching fault, if any. */
  async applyFault(
    call: RestCall,
  ): Promise<
    { status: number; body?: unknown; headers?: Record<string, string> } | 'drop' | 'hang' | undefined
  > {
    const key = `${call.method} ${call.route}`;
    const fault = this.faults.find(
      (f) =>
        (f.times ?? Number.POSITIVE_INFINITY) > 0 &&
        (typeof f.route === 'string' ? f.route === key : f.route.test(key)) &&
        this.#random() < (f.share ?? 1),
    );
    if (!fault) return undefined;
    if (fault.times !== undefined) fault.times -= 1;
    if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault.drop) return 'drop';
    if (fault.hang) return 'hang';
    if (fault.status === 429)
      return rateLimited({
        retryAfterMs: fault.retryAfterMs ?? 1000,
        headers: {},
        global: fault.global === true,
      });
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
    allowedMentions?: AllowedMentionsBody;
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
      pings: discordPings(input.content, input.allowedMentions),
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
      message.pings = discordPings(body.content, body.allowed_mentions as AllowedMentionsBody | undefined);
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
    const known = [this.botUser, ...this.users.values()];
    return known.filter((u) => ids.includes(u.id));
  }
}
