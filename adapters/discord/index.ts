/**
 * The Discord adapter (`switchboard/discord`), on discord.js 14. Threads are
 * sessions: a mention or `/ask` in a text channel opens one, every message in
 * it continues the session, and a DM with the bot is one session too.
 *
 * Rate limits are discord.js's job, not duplicated here: its REST client
 * tracks each route's bucket from the X-RateLimit headers and waits before
 * sending, so the core's scheduler sees an edit still in flight and keeps
 * only the newest text pending. With `rateLimits: 'reject'` discord.js throws
 * instead for message edits, and the 429 reaches the scheduler as
 * `RATE_LIMITED` with the wait.
 *
 * @example
 * const discord = createDiscordAdapter({ token: process.env.DISCORD_BOT_TOKEN!, guildId: '123' });
 * const bot = createBot({ adapters: [discord], ... });
 * await bot.start();
 */
import { ChannelType, type Client, Events, type RateLimitData, Routes } from 'discord.js';
import type {
  AccessGate,
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  MentionPolicy,
  OutboundMessage,
  SentMessage,
} from '../../src/bot/adapter-contract.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../src/call-deadline.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { DEFAULT_DOWNLOAD_LIMITS } from './attachments.js';
import { DEFAULT_PACES, type DiscordPaces, discordCapabilities } from './capabilities.js';
import { PLATFORM, parseChatKey, threadKey } from './chat-key.js';
import { COMMANDS } from './commands.js';
import { buildClient, connect } from './connection.js';
import type { InboundContext } from './context.js';
import { toSwitchboardError } from './errors.js';
import { guardGateway } from './gateway-guard.js';
import { DiscordInbound, threadName } from './inbound.js';
import { DiscordInteractions } from './interactions.js';
import { DiscordOutbound } from './outbound.js';
import { uploadToDiscord } from './upload.js';

export type { DiscordPaces } from './capabilities.js';
export { dmKey, parseChatKey, threadKey } from './chat-key.js';
export { COMMANDS } from './commands.js';
export { INTENT_MESSAGE, TOKEN_MESSAGE } from './connection.js';

/** Options for {@link createDiscordAdapter}. */
export interface DiscordAdapterOptions {
  /** The bot token (DISCORD_BOT_TOKEN). */
  token: string;
  /** REST base, e.g. `http://127.0.0.1:3000/api` (DISCORD_API_URL); the gateway URL comes from it. */
  apiUrl?: string;
  /** Register commands to this guild only (DISCORD_GUILD_ID; instant), else globally. */
  guildId?: string;
  logger?: Logger;
  /** Pacing the core applies; defaults are Discord's (1 s between edits, 5 writes per 5 s per channel). */
  paces?: Partial<DiscordPaces>;
  clock?: Clock;
  /** A button press the core has not answered by then is acknowledged silently. Default 2000 (Discord: 3 s). */
  interactionAckMs?: number;
  /** `queue` (default): discord.js waits out rate limits. `reject`: message edits fail with RATE_LIMITED instead. */
  rateLimits?: 'queue' | 'reject';
  /** discord.js retries for 5xx and timeouts (default 3). */
  restRetries?: number;
  /**
   * Longest wait for one send, edit, delete or typing call of the outbox,
   * retries and rate-limit waits inside discord.js included (default 15000);
   * then the call fails with PLATFORM_TIMEOUT and the outbox decides what next.
   */
  callTimeoutMs?: number;
  /** Largest attachment downloaded for the core, in bytes (default 20 MB). */
  maxFileBytes?: number;
  /** Give up on an attachment download after this long (default 30 s). */
  downloadTimeoutMs?: number;
  /** Mentions the model's text may make (SWITCHBOARD_ALLOW_MENTIONS; default `none`: they reach the chat as text, and `allowed_mentions` lets none ping). */
  mentions?: MentionPolicy;
}

/** The Discord {@link ChatAdapter}, with the underlying client for library users who need more. */
export interface DiscordAdapter extends ChatAdapter {
  readonly platform: 'discord';
  /** The discord.js client; undefined before start() and after stop(). */
  readonly client: Client | undefined;
}

/** True for the edit route, where a 429 should reach the core's scheduler in `reject` mode. */
function isMessageEdit(data: RateLimitData): boolean {
  return data.method.toUpperCase() === 'PATCH' && /\/channels\/[^/]+\/messages\/:id$/.test(data.route);
}

/** Creates the Discord adapter; nothing connects until start(). */
export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const mentions = options.mentions ?? 'none';
  const capabilities = { ...discordCapabilities({ ...DEFAULT_PACES, ...options.paces }), mentions };
  let client: Client<true> | undefined;
  const joinedThreads = new Set<string>();

  const rest = () => {
    if (!client) throw new SwitchboardError('PLATFORM_ERROR', 'The Discord adapter is not started.');
    return client.rest;
  };
  const outbound = new DiscordOutbound(
    rest,
    { timeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, clock },
    mentions,
  );

  return {
    platform: PLATFORM,
    get client() {
      return client;
    },
    // discord.js resumes a dropped gateway by itself; until it is ready again, no event arrives.
    health: () => (!client ? 'not started' : client.isReady() ? undefined : 'the gateway connection is down'),

    capabilities(_chat: string): ChatCapabilities {
      return capabilities;
    },

    async start(sink: EventSink, gate?: AccessGate): Promise<void> {
      const created = buildClient({
        ...(options.apiUrl ? { api: options.apiUrl } : {}),
        retries: options.restRetries ?? 3,
        ...(options.rateLimits === 'reject' ? { rejectOnRateLimit: isMessageEdit } : {}),
      });
      // Before login: the first dispatch may already be one discord.js cannot read.
      guardGateway(created, { logger });
      await connect(created, options.token);
      const ready = created as Client<true>;
      const ctx: InboundContext = {
        client: ready,
        sink,
        logger,
        clock,
        interactionAckMs: options.interactionAckMs ?? 2000,
        joinedThreads,
        downloads: {
          maxFileBytes: options.maxFileBytes ?? DEFAULT_DOWNLOAD_LIMITS.maxFileBytes,
          downloadTimeoutMs: options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_LIMITS.downloadTimeoutMs,
        },
        ...(gate ? { gate } : {}),
      };
      try {
        await registerCommands(ready, options.guildId);
      } catch (err) {
        await ready.destroy();
        throw err;
      }
      const inbound = new DiscordInbound(ctx);
      const interactions = new DiscordInteractions(ctx);
      ready.on(Events.MessageCreate, (m) => void inbound.onMessage(m));
      ready.on(Events.MessageUpdate, (before, after) => void inbound.onMessageUpdate(after, before));
      ready.on(Events.InteractionCreate, (i) => void interactions.onInteraction(i));
      ready.on(Events.ShardResume, () => logger.info('Discord gateway resumed'));
      ready.on(Events.ShardReconnecting, () => logger.warn('Discord gateway reconnecting'));
      ready.on(Events.Error, (err) => logger.error({ err }, 'Discord client error'));
      ready.on(Events.ShardDisconnect, (event) =>
        logger.error({ code: event.code }, 'Discord closed the gateway for good; restart switchboard'),
      );
      client = ready;
      logger.info({ user: ready.user.tag, guild: options.guildId ?? 'global' }, 'Discord connected');
    },

    async stop(): Promise<void> {
      const current = client;
      client = undefined;
      await current?.destroy();
    },

    send: (chat: string, message: OutboundMessage): Promise<SentMessage> => outbound.send(chat, message),
    edit: (chat: string, messageId: string, message: OutboundMessage) =>
      outbound.edit(chat, messageId, message),
    delete: (chat: string, messageId: string) => outbound.delete(chat, messageId),
    typing: (chat: string) => outbound.typing(chat),
    sendFile: (chat, file) => uploadToDiscord(rest(), chat, file),

    /**
     * A new thread in the channel of the chat's thread, under a message
     * saying what it is for; the bot owns it, so its messages are a session.
     * A DM has no threads.
     */
    async openThread(chat: string, text: string) {
      const { kind, channelId } = parseChatKey(chat);
      if (kind === 'dm' || !client) return undefined;
      const current = await client.channels.fetch(channelId);
      const parent = current?.isThread() ? current.parent : null;
      if (!parent || parent.type !== ChannelType.GuildText) return undefined;
      const opener = await parent.send({ content: text.slice(0, 2000), allowedMentions: { parse: [] } });
      const thread = await opener.startThread({
        name: threadName(text, 'switchboard'),
        autoArchiveDuration: 1440,
      });
      return { chat: threadKey(thread.id), url: thread.url };
    },

    describeChat(chat: string): string {
      const { kind, channelId } = parseChatKey(chat);
      if (kind === 'dm') return 'Discord DM';
      const thread = client?.channels.cache.get(channelId);
      return thread && 'name' in thread && thread.name
        ? `Discord thread "${thread.name}"`
        : `Discord thread ${channelId}`;
    },
  };
}

/** Bulk-overwrites the commands: to one guild (instant, for development) or globally. */
async function registerCommands(client: Client<true>, guildId: string | undefined): Promise<void> {
  const appId = client.application.id;
  const route = guildId ? Routes.applicationGuildCommands(appId, guildId) : Routes.applicationCommands(appId);
  try {
    await client.rest.put(route, { body: COMMANDS });
  } catch (err) {
    const mapped = toSwitchboardError(err, 'register the slash commands');
    if (guildId && mapped.code === 'NOT_FOUND') {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `DISCORD_GUILD_ID ${guildId} is not a server the bot is in: invite the bot there or unset DISCORD_GUILD_ID.`,
        { cause: err, detail: { variable: 'DISCORD_GUILD_ID' } },
      );
    }
    throw mapped;
  }
}
