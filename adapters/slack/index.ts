/**
 * The Slack adapter (`switchboard/slack`), on @slack/bolt: each Slack thread
 * is an agent session, driven by mentions, direct messages, thread replies,
 * `/switchboard <command>` and buttons. Socket Mode when an app token is
 * given, otherwise HTTP with signature checks.
 *
 * Given tokens it runs its own Bolt App; given your `App` (`{ app }`) it
 * adds its listeners to that one and you keep starting and stopping it.
 *
 * @example
 * const slack = createSlackAdapter({ token: process.env.SLACK_BOT_TOKEN!, appToken: process.env.SLACK_APP_TOKEN });
 * const bot = createBot({ adapters: [slack], ... });
 * await bot.start();
 */
import { type App, webApi } from '@slack/bolt';
import type {
  AccessGate,
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  HttpRoutes,
  MentionPolicy,
  NativeStreaming,
  OutboundMessage,
  SentMessage,
  StreamHandle,
} from '../../src/bot/adapter-contract.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../src/call-deadline.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { SLACK_DEFAULT_PACES, type SlackPaces, slackCapabilities } from './capabilities.js';
import { toSwitchboardError } from './errors.js';
import { type SlackFile, SlackFiles } from './files.js';
import { type BotIdentity, SlackInbound } from './inbound.js';
import { SlackInteractions } from './interactions.js';
import { parseSlackChatKey, SLACK_PLATFORM, slackChatKey } from './keys.js';
import { callSlack, SlackOutbound } from './outbound.js';
import { SlackStreams } from './stream.js';
import { ThreadTracker } from './threads.js';
import { boltLogger, listen, startTransport, type Transport } from './transport.js';
import { uploadToSlack } from './upload.js';
import { UserNames } from './users.js';

export { SLACK_DEFAULT_PACES, type SlackPaces } from './capabilities.js';
export { BOT_COMMANDS } from './commands.js';
export { parseSlackChatKey, slackChatKey } from './keys.js';
export { slackMarkdown, slackMrkdwn } from './markdown.js';

/** Options of {@link createSlackAdapter}: tokens, or your own `app`. */
export interface SlackAdapterOptions {
  /** Bot token, `xoxb-...` (SLACK_BOT_TOKEN); with `app`, default the token of `app.client`. */
  token?: string;
  /**
   * Your own Bolt App, instead of the adapter's: it adds its listeners
   * (messages, mentions, the slash command, its own buttons) to it now, and
   * never starts, stops or answers anything else on it; you start it
   * (Socket Mode or HTTP, your receiver). `appToken`, `signingSecret`,
   * `port`, `host` and `routes` are then your App's business and not read.
   */
  app?: App;
  /** App-level token, `xapp-...` (SLACK_APP_TOKEN): Socket Mode. */
  appToken?: string;
  /** Signing secret (SLACK_SIGNING_SECRET): HTTP mode, used when no app token is given. */
  signingSecret?: string;
  /** HTTP mode port (SLACK_PORT, default 3000; 0 picks a free one). */
  port?: number;
  /** HTTP mode listen address (default all interfaces). */
  host?: string;
  /** HTTP mode: extra routes served on the same port before Slack's (the ready bot's health and metrics). */
  routes?: HttpRoutes;
  /** Web API base ending in `/api/` (SLACK_API_URL); default Slack's. */
  apiUrl?: string;
  /** The one slash command the manifest declares (default `switchboard`). */
  commandName?: string;
  /** Largest shared file downloaded for the core, in bytes (default 20 MB). */
  maxFileBytes?: number;
  /** Give up on a file download after this long (default 30 s). */
  downloadTimeoutMs?: number;
  logger?: Logger;
  paces?: SlackPaces;
  /** Use chat streams when the server has them (default true). */
  nativeStreaming?: boolean;
  /** Socket Mode pong timeout and base reconnect delay (default 5000 ms). */
  socketPingTimeoutMs?: number;
  /** Retries of sends after 5xx / network errors (default 2; edits never retry). */
  retries?: number;
  /**
   * Longest wait for one Web API request (default 15000): a request whose
   * answer never comes fails with PLATFORM_TIMEOUT instead of holding its
   * message for good. A send's retries each wait as long again.
   */
  callTimeoutMs?: number;
  clock?: Clock;
  /** Mentions the model's text may make (SWITCHBOARD_ALLOW_MENTIONS; default `none`: they reach the chat as text). */
  mentions?: MentionPolicy;
}

/** The Slack adapter. */
export interface SlackAdapter extends Omit<ChatAdapter, keyof NativeStreaming>, NativeStreaming {
  readonly platform: 'slack';
  /** Who the bot is, once started. */
  readonly identity: BotIdentity | undefined;
  /** HTTP mode: the events URL, once started. */
  readonly url: string | undefined;
  /** HTTP mode: request signatures remembered against replays (only verified ones; bounded). */
  readonly rememberedSignatures: number;
}

/** Creates the Slack adapter; nothing connects until `start`. */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const commandName = `/${(options.commandName ?? 'switchboard').replace(/^\//, '')}`;
  const paces: Required<SlackPaces> = { ...SLACK_DEFAULT_PACES, ...options.paces };
  const own = options.app;
  const botToken = options.token ?? own?.client.token;
  if (!botToken) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      'createSlackAdapter needs `token` (xoxb-...), or an `app` whose client has the bot token',
    );
  }
  // The Web API client appends method names to this base, so it must end in a slash.
  const apiUrl = (options.apiUrl ?? own?.client.slackApiUrl)?.replace(/\/?$/, '/');
  const base = {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    logger: boltLogger(logger),
    rejectRateLimitedCalls: true,
    // The Web API client waits forever by default (timeout 0).
    timeout: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
  };
  const retries = options.retries ?? 2;
  const sendClient = new webApi.WebClient(botToken, { ...base, retryConfig: { retries } });
  const editClient = new webApi.WebClient(botToken, { ...base, retryConfig: { retries: 0 } });
  const tracker = new ThreadTracker();
  const users = new UserNames(sendClient, logger);
  const outbound = new SlackOutbound({ send: sendClient, edit: editClient }, tracker, (id) => users.name(id));
  const streams = new SlackStreams(editClient, outbound, tracker, logger, options.nativeStreaming ?? true);
  let identity: BotIdentity | undefined;
  let transport: Transport | undefined;
  /** On your App the listeners stay (Bolt cannot remove them); they pass nothing on once stopped. */
  let listening = false;

  const inbound = new SlackInbound({
    tracker,
    users,
    logger,
    files: new SlackFiles(botToken, apiUrl, logger, {
      fileInfo: async (id) => (await callSlack(sendClient, 'files.info', { file: id })).file as SlackFile,
      ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
      ...(options.downloadTimeoutMs === undefined ? {} : { downloadTimeoutMs: options.downloadTimeoutMs }),
    }),
    tellOnly: (channel, threadTs, user, text) => outbound.ephemeral(channel, threadTs, user, text),
    botInThread: async (channel, threadTs) => {
      try {
        const res = await callSlack(sendClient, 'conversations.replies', {
          channel,
          ts: threadTs,
          limit: 200,
        });
        const messages = (res.messages ?? []) as Array<{ user?: string; bot_id?: string }>;
        const found = messages.some(
          (m) => m.user === identity?.userId || (m.bot_id && m.bot_id === identity?.botId),
        );
        if (found) tracker.join(channel, threadTs);
        else tracker.markWithoutBot(channel, threadTs);
        return found;
      } catch (err) {
        logger.debug({ err, channel }, 'conversations.replies failed; ignoring the thread message');
        return false;
      }
    },
  });
  const interactions = new SlackInteractions({
    tracker,
    users,
    outbound,
    logger,
    commandName,
    threadLink: async (channel, threadTs) => {
      try {
        const res = await callSlack(sendClient, 'chat.getPermalink', { channel, message_ts: threadTs });
        return `<${String(res.permalink)}|your thread>`;
      } catch {
        return 'your thread';
      }
    },
  });
  /** A top-level message in `channel`, whose ts starts a thread. */
  async function startThread(channel: string, text: string): Promise<string> {
    const res = await callSlack(sendClient, 'chat.postMessage', { channel, text });
    return String(res.ts);
  }

  const adapter: SlackAdapter = {
    platform: SLACK_PLATFORM,
    get identity() {
      return identity;
    },
    get url() {
      return transport?.url;
    },
    get rememberedSignatures() {
      return transport?.rememberedSignatures?.() ?? 0;
    },
    health: () => (transport ? transport.health() : 'not started'),

    capabilities(chat: string): ChatCapabilities {
      return {
        ...slackCapabilities(paces, streams.available !== false, chat),
        mentions: options.mentions ?? 'none',
      };
    },
    async start(sink: EventSink, gate?: AccessGate): Promise<void> {
      if (transport) throw new SwitchboardError('PLATFORM_ERROR', 'The Slack adapter is already started.');
      let auth: Record<string, unknown>;
      try {
        auth = (await sendClient.apiCall('auth.test', {})) as unknown as Record<string, unknown>;
      } catch (err) {
        const e = toSwitchboardError(err, 'auth.test');
        throw e.code === 'PLATFORM_AUTH'
          ? e
          : new SwitchboardError(
              'PLATFORM_ERROR',
              `Could not reach Slack to check the bot token: ${e.message}`,
              {
                cause: err,
              },
            );
      }
      identity = { userId: String(auth.user_id), botId: String(auth.bot_id), teamId: String(auth.team_id) };
      inbound.bot = identity;
      inbound.sink = sink;
      inbound.gate = gate;
      interactions.gate = gate;
      interactions.bot = identity;
      interactions.sink = sink;
      if (own) {
        if (!listening) listen(own, { commandName, logger, inbound, interactions });
        listening = true;
        transport = { health: () => undefined, stop: async () => {} };
        logger.info({ mode: 'attached', bot: identity.userId }, 'Slack adapter joined your app');
        return;
      }
      transport = await startTransport({
        botToken,
        botId: identity.botId,
        botUserId: identity.userId,
        ...(options.appToken ? { appToken: options.appToken } : {}),
        ...(options.signingSecret ? { signingSecret: options.signingSecret } : {}),
        port: options.port ?? 3000,
        ...(options.host ? { host: options.host } : {}),
        ...(options.routes ? { routes: options.routes } : {}),
        commandName,
        ...(options.socketPingTimeoutMs ? { socketPingTimeoutMs: options.socketPingTimeoutMs } : {}),
        clientOptions: {
          ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
          retryConfig: { retries },
          timeout: base.timeout,
        },
        logger,
        clock,
        inbound,
        interactions,
      });
      logger.info(
        { mode: transport.url ? 'http' : 'socket', url: transport.url, bot: identity.userId },
        'Slack adapter started',
      );
    },
    async stop(): Promise<void> {
      const running = transport;
      transport = undefined;
      inbound.sink = undefined;
      interactions.sink = undefined;
      await running?.stop();
    },
    send: (chat: string, message: OutboundMessage): Promise<SentMessage> => outbound.send(chat, message),
    edit: (chat: string, messageId: string, message: OutboundMessage): Promise<void> =>
      outbound.edit(chat, messageId, message),
    delete: (chat: string, messageId: string): Promise<void> => outbound.delete(chat, messageId),
    sendFile: (chat, file) => uploadToSlack(editClient, chat, file),
    async typing(_chat: string): Promise<void> {
      // Slack shows no typing indicator for bots; capabilities say typingIntervalMs 0.
    },
    startStream: (chat: string, opts: { replyTo?: string }): Promise<StreamHandle> =>
      streams.startStream(chat, opts),
    updateStream: (handle: StreamHandle, message: OutboundMessage): Promise<void> =>
      streams.updateStream(handle, message),
    finishStream: (handle: StreamHandle, message: OutboundMessage): Promise<SentMessage> =>
      streams.finishStream(handle, message),
    /** A new thread in the chat's channel (a new top-level message), joined so replies there reach the bot. */
    async openThread(chat: string, text: string) {
      const { channel } = parseSlackChatKey(chat);
      const ts = await startThread(channel, text);
      tracker.join(channel, ts);
      let url: string | undefined;
      try {
        const res = await callSlack(sendClient, 'chat.getPermalink', { channel, message_ts: ts });
        url = String(res.permalink);
      } catch (err) {
        logger.debug({ err, channel }, 'chat.getPermalink failed; the line goes without a link');
      }
      return { chat: slackChatKey(channel, ts), messageId: ts, ...(url ? { url } : {}) };
    },
    describeChat(chat: string): string {
      const { channel, threadTs } = parseSlackChatKey(chat);
      // Plain words: the label is shown in Markdown and in mrkdwn alike.
      return channel.startsWith('D') ? `DM thread ${threadTs}` : `channel ${channel}, thread ${threadTs}`;
    },
  };
  return adapter;
}
