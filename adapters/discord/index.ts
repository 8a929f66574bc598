/**
 * The Discord adapter (`switchboard/discord`), on discord.js 14. Threads are
 * sessions: a mention or `/ask` in a text channel opens one, every message in
 * it continues the session, and a DM with the bot is one session too.
 *
 * Rate limits are the core's scheduler's to wait out: every call the core
 * makes (send, edit, delete, typing, uploads, opening a thread) rejects with
 * `RATE_LIMITED`, its wait and its scope (Discord's global limit: the whole
 * adapter; a route's: the chat) instead of waiting inside discord.js, which
 * still reads the buckets so a limit it can see coming is reported before
 * anything is sent (rate-limits.ts).
 *
 * Given a token it builds, logs in and destroys its own client; given your
 * discord.js `Client` (`{ client }`) it joins that one: it listens beside
 * your handlers, answers only its own commands and buttons, and leaves the
 * login and the client's end to you.
 *
 * @example
 * const discord = createDiscordAdapter({ token: process.env.DISCORD_BOT_TOKEN!, guildId: '123' });
 * const bot = createBot({ adapters: [discord], ... });
 * await bot.start();
 */
import { ChannelType, type Client, type ClientEvents, Events, type Interaction, Routes } from 'discord.js';
import type {
  AccessGate,
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  MentionPolicy,
  OutboundMessage,
  SentMessage,
} from '../../src/bot/adapter-contract.js';
import { decodeButton } from '../../src/bot/buttons.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../src/call-deadline.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { DEFAULT_DOWNLOAD_LIMITS } from './attachments.js';
import { DEFAULT_PACES, type DiscordPaces, discordCapabilities } from './capabilities.js';
import { PLATFORM, parseChatKey, threadKey } from './chat-key.js';
import { COMMANDS } from './commands.js';
import { buildClient, checkClient, connect, whenReady } from './connection.js';
import type { InboundContext } from './context.js';
import { toSwitchboardError } from './errors.js';
import { guardGateway } from './gateway-guard.js';
import { DiscordInbound, threadName } from './inbound.js';
import { DiscordInteractions } from './interactions.js';
import { DiscordOutbound } from './outbound.js';
import { reportingRateLimits, reportRateLimits } from './rate-limits.js';
import { uploadToDiscord } from './upload.js';

export type { DiscordPaces } from './capabilities.js';
export { dmKey, parseChatKey, threadKey } from './chat-key.js';
export { COMMANDS } from './commands.js';
export { INTENT_MESSAGE, REQUIRED_INTENTS, REQUIRED_PARTIALS, TOKEN_MESSAGE } from './connection.js';
export { discordMarkdown } from './markdown.js';

/** Options for {@link createDiscordAdapter}: a `token`, or your own `client`. */
export interface DiscordAdapterOptions {
  /** The bot token (DISCORD_BOT_TOKEN): the adapter builds and logs in its own client. */
  token?: string;
  /**
   * Your own discord.js client, instead of a token; it needs
   * {@link REQUIRED_INTENTS} and {@link REQUIRED_PARTIALS}. You log it in
   * (before or after the bot's `start()`, which waits for it to be ready)
   * and destroy it; `stop()` only takes the adapter's listeners off.
   * `apiUrl` and `restRetries` are then your client's business; the rate
   * limits of the adapter's calls still reach the core, yours are untouched.
   */
  client?: Client;
  /**
   * Overwrite the application's slash commands with {@link COMMANDS} at
   * start (default: true with a token; false with your `client`, whose
   * commands are yours: add COMMANDS to the ones you register).
   */
  registerCommands?: boolean;
  /** REST base, e.g. `http://127.0.0.1:3000/api` (DISCORD_API_URL); the gateway URL comes from it. */
  apiUrl?: string;
  /** Register commands to this guild only (DISCORD_GUILD_ID; instant), else globally. */
  guildId?: string;
  logger?: Logger;
  /** Pacing the core applies; defaults are Discord's (1 s between edits, 5 writes per 5 s per channel). */
  paces?: Partial<DiscordPaces>;
  clock?: Clock;
  /** A button press the core has not answered by then is acknowledged silently. Default 2000 (Discord: 3 s). */
  ackDeadlineMs?: number;
  /** discord.js retries for 5xx and timeouts (default 3). */
  restRetries?: number;
  /**
   * Longest wait for one send, edit, delete or typing call of the outbox,
   * discord.js's retries included (default 15000; rate limits are reported, not waited out);
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

/** Creates the Discord adapter; nothing connects until start(). */
export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const mentions = options.mentions ?? 'none';
  const paces: DiscordPaces = { ...DEFAULT_PACES, ...options.paces };
  const own = options.client;
  if ((own === undefined) === (options.token === undefined)) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      'createDiscordAdapter needs either `token` (the adapter runs its own client) or `client` (your discord.js Client), not both',
    );
  }
  if (own) {
    checkClient(own);
    // Guarded from before its login too: a dispatch discord.js cannot read would end the process.
    guardGateway(own, { logger });
  }
  let client: Client<true> | undefined;
  /** What the adapter listens to, taken off again on stop (on your client, your listeners stay). */
  let listening: Array<() => void> = [];
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

    capabilities(chat: string): ChatCapabilities {
      return { ...discordCapabilities(paces, chat), mentions };
    },

    async start(sink: EventSink, gate?: AccessGate): Promise<void> {
      let ready: Client<true>;
      if (own) {
        ready = await whenReady(own);
      } else {
        const created = buildClient({
          ...(options.apiUrl ? { api: options.apiUrl } : {}),
          retries: options.restRetries ?? 3,
        });
        // Before login: the first dispatch may already be one discord.js cannot read.
        guardGateway(created, { logger });
        await connect(created, options.token ?? '');
        ready = created as Client<true>;
      }
      reportRateLimits(ready.rest);
      const ctx: InboundContext = {
        client: ready,
        sink,
        logger,
        clock,
        interactionAckMs: options.ackDeadlineMs ?? 2000,
        joinedThreads,
        downloads: {
          maxFileBytes: options.maxFileBytes ?? DEFAULT_DOWNLOAD_LIMITS.maxFileBytes,
          downloadTimeoutMs: options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_LIMITS.downloadTimeoutMs,
        },
        ...(gate ? { gate } : {}),
      };
      if (options.registerCommands ?? !own) {
        try {
          await registerCommands(ready, options.guildId);
        } catch (err) {
          if (!own) await ready.destroy();
          throw err;
        }
      }
      const inbound = new DiscordInbound(ctx);
      const interactions = new DiscordInteractions(ctx);
      const on = <E extends keyof ClientEvents>(event: E, listener: (...args: ClientEvents[E]) => void) => {
        ready.on(event, listener);
        listening.push(() => ready.off(event, listener));
      };
      on(Events.MessageCreate, (m) => void inbound.onMessage(m));
      on(Events.MessageUpdate, (before, after) => void inbound.onMessageUpdate(after, before));
      on(Events.InteractionCreate, (i) => {
        // On your client, your own commands, buttons and menus are left to your handlers.
        if (own && !isOurs(i)) return;
        void interactions.onInteraction(i);
      });
      on(Events.ShardResume, () => logger.info('Discord gateway resumed'));
      on(Events.ShardReconnecting, () => logger.warn('Discord gateway reconnecting'));
      on(Events.Error, (err) => logger.error({ err }, 'Discord client error'));
      on(Events.ShardDisconnect, (event) =>
        logger.error({ code: event.code }, 'Discord closed the gateway for good; restart switchboard'),
      );
      client = ready;
      logger.info({ user: ready.user.tag, guild: options.guildId ?? 'global' }, 'Discord connected');
    },

    async stop(): Promise<void> {
      const current = client;
      client = undefined;
      for (const off of listening) off();
      listening = [];
      // Your client is yours to destroy.
      if (!own) await current?.destroy();
    },

    send: (chat: string, message: OutboundMessage): Promise<SentMessage> => outbound.send(chat, message),
    edit: (chat: string, messageId: string, message: OutboundMessage) =>
      outbound.edit(chat, messageId, message),
    delete: (chat: string, messageId: string) => outbound.delete(chat, messageId),
    typing: (chat: string) => outbound.typing(chat),
    sendFile: (chat, file) => reportingRateLimits(() => uploadToDiscord(rest(), chat, file)),

    /**
     * A new thread in the channel of the chat's thread, under a message
     * saying what it is for; the bot owns it, so its messages are a session.
     * A DM has no threads.
     */
    async openThread(chat: string, text: string) {
      const { kind, channelId } = parseChatKey(chat);
      const ready = client;
      if (kind === 'dm' || !ready) return undefined;
      try {
        return await reportingRateLimits(async () => {
          const current = await ready.channels.fetch(channelId);
          const parent = current?.isThread() ? current.parent : null;
          if (!parent || parent.type !== ChannelType.GuildText) return undefined;
          const opener = await parent.send({ content: text.slice(0, 2000), allowedMentions: { parse: [] } });
          const thread = await opener.startThread({
            name: threadName(text, 'switchboard'),
            autoArchiveDuration: 1440,
          });
          return { chat: threadKey(thread.id), url: thread.url };
        });
      } catch (err) {
        throw toSwitchboardError(err, 'open a thread');
      }
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

const OUR_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.map((c) => c.name));

/** An interaction the adapter offered: one of its slash commands, or a button the core made. */
function isOurs(i: Interaction): boolean {
  if (i.isChatInputCommand() || i.isAutocomplete()) return OUR_COMMANDS.has(i.commandName);
  if (i.isButton()) return decodeButton(i.customId) !== undefined;
  return false;
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
