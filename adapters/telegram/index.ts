/**
 * The Telegram adapter (`switchboard/telegram`): the real grammy client,
 * long polling through @grammyjs/runner or a webhook, drafts for streaming
 * in private chats, rich messages where the server has them.
 *
 * Given a token it builds and runs its own grammY bot; given your `Bot`
 * (`{ bot }`) it joins that bot instead: its handler goes into your
 * middleware chain where you create the adapter, and you keep running the
 * bot (`bot.start()`, the runner or your webhook), so there is one poller.
 *
 * @example
 * const telegram = createTelegramAdapter({ token: process.env.TELEGRAM_BOT_TOKEN! });
 * const bot = createBot({ adapters: [telegram], ... });
 * await bot.start();
 */
import { sequentialize } from '@grammyjs/runner';
import { type Bot, Composer, GrammyError } from 'grammy';
import type {
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  MentionPolicy,
  NativeStreaming,
  RateBudget,
} from '../../src/bot/adapter-contract.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../src/call-deadline.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { apiBeside, createGrammyBot } from './api.js';
import {
  DEFAULT_PACES,
  type TelegramFeatures,
  type TelegramPaces,
  telegramCapabilities,
} from './capabilities.js';
import { isPrivateChat, parseChatKey } from './chat-key.js';
import { TELEGRAM_COMMANDS } from './commands.js';
import { BOT_API_DOWNLOAD_LIMIT, TelegramDispatcher, updateKind } from './dispatch.js';
import { sequenceKey } from './inbound.js';
import { TelegramOutbound } from './outbound.js';
import { TopicOpener } from './topics.js';
import { startPolling, startWebhook, type Transport, type WebhookOptions } from './transport.js';
import { uploadToTelegram } from './upload.js';

export { DEFAULT_PACES, type TelegramFeatures, type TelegramPaces } from './capabilities.js';
export { chatKey, parseChatKey } from './chat-key.js';
export { TELEGRAM_COMMANDS } from './commands.js';
export { telegramHtml, telegramMarkdown } from './markdown.js';
export { ALLOWED_UPDATES, type WebhookOptions } from './transport.js';

const DEFAULT_API_ROOT = 'https://api.telegram.org';

/** Options for {@link createTelegramAdapter}: a `token`, or your own `bot`. */
export interface TelegramAdapterOptions {
  /** The bot token from @BotFather: the adapter builds and runs its own grammY bot. */
  token?: string;
  /**
   * Your own grammY bot, instead of a token. The adapter adds its handler to
   * your middleware chain now (handlers you added before it run first; what
   * they pass on with `next()` or do not handle reaches the agent) and never
   * polls, sets a webhook or changes your bot's error handler: you start the
   * bot, asking for {@link ALLOWED_UPDATES} among your update types.
   * `apiUrl` and `webhook` are then your bot's business and not read.
   */
  bot?: Bot;
  /**
   * Register the commands with setMyCommands at start (default: true with a
   * token; false with your `bot`, whose command menu is yours).
   */
  registerCommands?: boolean;
  /** The Bot API base: a local Bot API server (TELEGRAM_API_ROOT); default Telegram's. */
  apiUrl?: string;
  /** Webhook mode instead of long polling. */
  webhook?: WebhookOptions;
  logger?: Logger;
  clock?: Clock;
  /** Override Telegram's paces (tests use short ones). */
  paces?: Partial<TelegramPaces>;
  /** Try rich messages first (default true); they turn off by themselves on a 404. */
  rich?: boolean;
  /** Answer a button press the core left unanswered after this long (default 10 s). */
  ackDeadlineMs?: number;
  /** Longest wait for one send, edit, delete, typing or draft call of the outbox (default 15000); then PLATFORM_TIMEOUT. */
  callTimeoutMs?: number;
  /**
   * Largest photo or document downloaded for the core, in bytes (default
   * 20 MB; Telegram's own servers never hand a bot more than 20 MB).
   */
  maxFileBytes?: number;
  /** Give up on a file download after this long (default 30 s). */
  downloadTimeoutMs?: number;
  /** Mentions the model's text may make (SWITCHBOARD_ALLOW_MENTIONS; default `none`: they reach the chat as text). */
  mentions?: MentionPolicy;
}

/** The adapter: a {@link ChatAdapter} with Telegram's drafts as native streaming. */
export interface TelegramAdapter extends ChatAdapter {
  startStream: NativeStreaming['startStream'];
  updateStream: NativeStreaming['updateStream'];
  finishStream: NativeStreaming['finishStream'];
  readonly platform: 'telegram';
  readonly globalBudget: RateBudget;
  /** The server features in use (rich messages, drafts); each turns off after a 404. */
  readonly features: Readonly<TelegramFeatures>;
  /** The local port of the webhook server, once started in webhook mode. */
  readonly webhookPort: number | undefined;
}

/** Creates the Telegram adapter; nothing touches the network before `start`. */
export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const paces: TelegramPaces = { ...DEFAULT_PACES, ...options.paces };
  const features: TelegramFeatures = { rich: options.rich ?? true, drafts: true };
  const attached = options.bot;
  if ((attached === undefined) === (options.token === undefined)) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      'createTelegramAdapter needs either `token` (the adapter runs its own bot) or `bot` (your grammY Bot), not both',
    );
  }
  const token = attached?.token ?? options.token ?? '';
  const apiRoot = (attached?.api.options?.apiRoot ?? options.apiUrl ?? DEFAULT_API_ROOT).replace(/\/+$/, '');
  const bot = attached ?? createGrammyBot({ token, apiRoot, logger });
  const api = attached ? apiBeside(attached, logger) : bot.api;
  const outbound = new TelegramOutbound({
    api,
    features,
    logger,
    deadline: { timeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, clock },
  });
  const dispatcher = new TelegramDispatcher({
    api,
    token,
    apiRoot,
    logger,
    clock,
    callbackDeadlineMs: options.ackDeadlineMs ?? 10_000,
    maxFileBytes: options.maxFileBytes ?? BOT_API_DOWNLOAD_LIMIT,
    downloadTimeoutMs: options.downloadTimeoutMs ?? 30_000,
    botApiLimit: apiRoot === DEFAULT_API_ROOT,
  });
  const topics = new TopicOpener({ api, send: (chat, message) => outbound.send(chat, message), logger });
  let transport: Transport | undefined;
  let sink: EventSink | undefined;
  let started = false;
  let lastUpdateId: number | undefined;

  const handler = new Composer();
  if (!attached) {
    handler.use(async (ctx, next) => {
      lastUpdateId = Math.max(lastUpdateId ?? 0, ctx.update.update_id);
      await next();
    });
  }
  handler.use(sequentialize((ctx: { update: Parameters<typeof sequenceKey>[0] }) => sequenceKey(ctx.update)));
  handler.use(async (ctx, next) => {
    // Joined to someone else's bot and not started (or stopped): their chain goes on without us.
    if (!sink) return attached ? next() : undefined;
    try {
      // Hands the event to the core, which queues the turn: a sequential poller is never held by a reply.
      await dispatcher.dispatch(ctx.update, ctx.me, sink);
    } catch (err) {
      // Caught here, not by bot.catch: on a bot that is not ours the error handler is the owner's.
      logger.error(
        {
          err: err instanceof Error ? err.message : String(err),
          kind: updateKind(ctx.update),
          update: ctx.update.update_id,
        },
        'Telegram update handling failed; the bot keeps running',
      );
    }
  });
  bot.use(handler);

  return {
    platform: 'telegram',
    globalBudget: { ...paces.globalBudget },
    features,
    get webhookPort() {
      return transport?.port;
    },
    health: () => {
      if (attached) return started ? undefined : 'not started';
      return transport ? transport.health() : 'not started';
    },

    capabilities(chat: string): ChatCapabilities {
      return {
        ...telegramCapabilities(parseChatKey(chat), features, paces),
        mentions: options.mentions ?? 'none',
      };
    },

    async start(eventSink: EventSink): Promise<void> {
      sink = eventSink;
      try {
        await bot.init();
      } catch (err) {
        if (err instanceof GrammyError && err.error_code === 401) {
          throw new SwitchboardError(
            'PLATFORM_AUTH',
            'TELEGRAM_BOT_TOKEN was rejected by Telegram (401): check the token from @BotFather',
            {
              detail: { status: 401 },
            },
          );
        }
        throw new SwitchboardError(
          'PLATFORM_ERROR',
          `Could not reach the Telegram Bot API at ${apiRoot}: check TELEGRAM_API_ROOT and the network`,
          {
            cause: err instanceof Error ? new Error(err.message.split(token).join('[redacted]')) : err,
          },
        );
      }
      await outbound.probe();
      if (options.registerCommands ?? !attached) {
        try {
          await api.setMyCommands([...TELEGRAM_COMMANDS]);
        } catch (err) {
          logger.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'could not register Telegram commands',
          );
        }
      }
      started = true;
      if (attached) {
        logger.info({ username: bot.botInfo.username, mode: 'attached' }, 'Telegram adapter joined your bot');
        return;
      }
      transport = options.webhook
        ? await startWebhook(bot, options.webhook, logger)
        : await startPolling(bot, logger, () => lastUpdateId);
      logger.info(
        { username: bot.botInfo.username, mode: options.webhook ? 'webhook' : 'polling' },
        'Telegram adapter started',
      );
    },

    async stop(): Promise<void> {
      const running = transport;
      transport = undefined;
      started = false;
      await running?.stop();
      sink = undefined;
    },

    send: (chat, message) => outbound.send(chat, message),
    edit: (chat, messageId, message) => outbound.edit(chat, messageId, message),
    delete: (chat, messageId) => outbound.delete(chat, messageId),
    typing: (chat) => outbound.typing(chat),
    sendFile: (chat, file) => uploadToTelegram(api, chat, file),
    startStream: (chat, streamOptions) => outbound.startStream(chat, streamOptions),
    updateStream: (handle, message) => outbound.updateStream(handle, message),
    finishStream: (handle, message) => outbound.finishStream(handle, message),
    openThread: (chat, text) => topics.open(chat, text),

    describeChat(chat: string): string {
      const parsed = parseChatKey(chat);
      if (isPrivateChat(parsed)) return 'Telegram private chat';
      return parsed.threadId === undefined
        ? `Telegram group ${parsed.chatId}`
        : `Telegram topic ${parsed.threadId} in group ${parsed.chatId}`;
    },
  };
}
