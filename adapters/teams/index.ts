/**
 * The Microsoft Teams adapter (`switchboard/teams`), on the Teams SDK for
 * TypeScript (`@microsoft/teams.apps`, see README.md for why). Personal
 * chats, group chats and channel threads are sessions; replies stream in
 * personal chats and are edited in place elsewhere; buttons are Adaptive
 * Card actions.
 *
 * The bot serves its messaging endpoint (`/api/messages`) on its own port.
 * Every request is checked as the Bot Connector documents before anything
 * reads it: the signing key's endorsement here (`endorsements.ts`), the
 * rest by the SDK; a refused request gets 401.
 *
 * @example
 * const teams = createTeamsAdapter({ appId: process.env.TEAMS_APP_ID!, appPassword: process.env.TEAMS_APP_PASSWORD! });
 * const bot = createBot({ adapters: [teams], ... });
 * await bot.start();
 */
import { join } from 'node:path';
import { PUBLIC, withOverrides } from '@microsoft/teams.api';
import { App } from '@microsoft/teams.apps';
import type {
  AccessGate,
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  HttpRoutes,
  OpenedThread,
} from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../../src/call-deadline.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import { capabilitiesOf, TEAMS_DEFAULT_PACES, type TeamsPaces } from './capabilities.js';
import { chatKey, chatKind, conversationOf, PLATFORM } from './chat-key.js';
import { bearerToken, createEndorsementCheck } from './endorsements.js';
import { TeamsInbound } from './handler.js';
import { TeamsOutbound } from './outbound.js';
import { sdkLogger } from './sdk-logger.js';
import { MessagingServer } from './server.js';
import { ServiceUrls } from './service-urls.js';
import { TeamsStreams } from './stream.js';
import { createTokenSource, LOGIN_ENDPOINT, tokenUrl } from './token.js';
import { TeamsUploads } from './upload.js';

export type { TeamsPaces } from './capabilities.js';
export { chatKey, conversationOf } from './chat-key.js';
export { TEAMS_MARKDOWN } from './markdown.js';

/** Options of {@link createTeamsAdapter}. */
export interface TeamsAdapterOptions {
  /** The bot's Microsoft app id (TEAMS_APP_ID): the audience of the tokens Teams sends it. */
  appId: string;
  /** Its client secret (TEAMS_APP_PASSWORD). */
  appPassword: string;
  /** The tenant of a single-tenant bot (TEAMS_TENANT_ID); multi-tenant bots leave it out. */
  tenantId?: string;
  /** Port of the messaging endpoint (TEAMS_PORT, default 3978); 0 picks a free one. */
  port?: number;
  /** Interface to listen on (default: all). */
  host?: string;
  /** The token endpoint, instead of Microsoft's (TEAMS_AUTH_URL; a test's loopback issuer). */
  authUrl?: string;
  /**
   * The Bot Connector's OpenID metadata, instead of Microsoft's
   * (TEAMS_OPENID_URL). It must end in `/openidconfiguration`, with the keys
   * at `/keys` beside it, as Microsoft's are: the SDK finds them that way.
   */
  openIdMetadataUrl?: string;
  /** Where the conversations' endpoints are kept across restarts (the bot's data directory). */
  dataDir?: string;
  /** The ready bot's /healthz, /readyz and /metrics, served on the same port. */
  routes?: HttpRoutes;
  logger?: Logger;
  clock?: Clock;
  paces?: Partial<TeamsPaces>;
  /** Stream replies in personal chats (default true); false edits a message there too. */
  streaming?: boolean;
  /** Largest file downloaded for the core, in bytes (default 20 MB). */
  maxFileBytes?: number;
  /** Give up on one download after this long (default 30 s). */
  downloadTimeoutMs?: number;
  /** Longest wait for one Bot Connector call (default 15 s). */
  callTimeoutMs?: number;
  /** A press the core has not answered by then is acknowledged (default 4000 ms; Teams waits about 5 s). */
  ackDeadlineMs?: number;
}

/** The Teams {@link ChatAdapter}, with the port it listens on. */
export interface TeamsAdapter extends ChatAdapter {
  readonly platform: 'teams';
  /** The messaging endpoint's port once started (useful with port 0). */
  readonly port: number | undefined;
}

/** Creates the Teams adapter; nothing listens until start(). */
export function createTeamsAdapter(options: TeamsAdapterOptions): TeamsAdapter {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const paces: TeamsPaces = { ...TEAMS_DEFAULT_PACES, ...options.paces };
  const streaming = options.streaming ?? true;
  const token = createTokenSource({
    appId: options.appId,
    appPassword: options.appPassword,
    url: options.authUrl ?? tokenUrl(options.tenantId, LOGIN_ENDPOINT),
    clock,
  });
  const urls = new ServiceUrls(
    options.dataDir ? join(options.dataDir, 'teams', 'service-urls.json') : undefined,
    logger,
    clock,
  );
  const sdkLog = sdkLogger(logger);
  const outbound = new TeamsOutbound({
    urls,
    token,
    timeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    logger: sdkLog,
  });
  /** Set once started: where a stream the person stopped is reported. */
  let stopped: (chat: string) => void = () => undefined;
  const streams = new TeamsStreams(outbound, (chat) => stopped(chat));
  const uploads = new TeamsUploads({ outbound, clock, logger });
  const openIdMetadataUrl = options.openIdMetadataUrl ?? PUBLIC.openIdMetadataUrl;
  const endorses = createEndorsementCheck({ openIdMetadataUrl, clock });
  let server: MessagingServer | undefined;

  const adapter: TeamsAdapter = {
    platform: PLATFORM,
    globalBudget: paces.globalBudget,
    get port() {
      return server?.port;
    },
    health: () => (server?.listening ? undefined : 'the Teams messaging endpoint is not listening'),

    capabilities(chat: string): ChatCapabilities {
      return capabilitiesOf(paces, chat, streaming);
    },

    async start(sink: EventSink, gate?: AccessGate): Promise<void> {
      await urls.load();
      const http = new MessagingServer({
        logger,
        ...(options.host ? { host: options.host } : {}),
        ...(options.routes ? { routes: options.routes } : {}),
        // The endorsement, before the SDK checks the rest of the token.
        screen: async ({ body, headers }) => {
          const bearer = bearerToken(headers.authorization);
          const channelId = (body as { channelId?: unknown } | null)?.channelId;
          const why = bearer
            ? await endorses(bearer, typeof channelId === 'string' ? channelId : undefined)
            : 'no bearer token';
          if (!why) return undefined;
          logger.warn({ why }, 'refused a Teams request that failed authentication');
          return { status: 401, body: { error: 'Unauthorized' } };
        },
      });
      const app = new App({
        clientId: options.appId,
        ...(options.tenantId ? { tenantId: options.tenantId } : {}),
        token: () => token(),
        httpServerAdapter: http,
        logger: sdkLog,
        cloud: withOverrides(PUBLIC, { openIdMetadataUrl }),
        messagingEndpoint: '/api/messages',
        // Stated, so the SDK's DANGEROUSLY_ALLOW_UNAUTHENTICATED_REQUESTS variable can never switch the check off.
        dangerouslyAllowUnauthenticatedRequests: false,
      });
      const inbound = new TeamsInbound({
        sink,
        ...(gate ? { gate } : {}),
        urls,
        outbound,
        uploads,
        logger,
        clock,
        token,
        ackMs: options.ackDeadlineMs ?? 4000,
        maxFileBytes: options.maxFileBytes ?? 20 * 1024 * 1024,
        downloadTimeoutMs: options.downloadTimeoutMs ?? 30_000,
      });
      stopped = (chat) => void inbound.stopped(chat);
      app.use(async (ctx) => inbound.onActivity(ctx.activity));
      await app.initialize();
      await http.start(options.port ?? 3978);
      server = http;
      logger.info({ port: http.port }, 'Teams messaging endpoint listening on /api/messages');
    },

    async stop(): Promise<void> {
      const current = server;
      server = undefined;
      await current?.stop();
    },

    send: (chat, message) => outbound.send(chat, message),
    edit: (chat, messageId, message) => outbound.edit(chat, messageId, message),
    delete: (chat, messageId) => outbound.delete(chat, messageId),
    typing: (chat) => outbound.typing(chat),
    sendFile: (chat, file) => uploads.offer(chat, file),
    startStream: (chat) => streams.startStream(chat),
    updateStream: (handle, message) => streams.updateStream(handle, message),
    finishStream: (handle, message) => streams.finishStream(handle, message),

    /**
     * A new post in the channel of a channel thread, which starts a thread
     * of its own; personal and group chats have no threads.
     */
    async openThread(chat: string, text: string): Promise<OpenedThread | undefined> {
      const conversationId = conversationOf(chat);
      if (chatKind(conversationId) !== 'channel') return undefined;
      const channel = conversationId.replace(/;messageid=.*$/i, '');
      const serviceUrl = urls.get(conversationId);
      if (!serviceUrl) return undefined;
      await urls.remember(channel, serviceUrl);
      const sent = await outbound.send(chatKey(channel), { text, format: plain });
      const thread = `${channel};messageid=${sent.messageId}`;
      await urls.remember(thread, serviceUrl);
      return { chat: chatKey(thread), messageId: sent.messageId };
    },

    describeChat(chat: string): string {
      const kind = chatKind(conversationOf(chat));
      return kind === 'personal'
        ? 'Teams chat'
        : kind === 'group'
          ? 'Teams group chat'
          : 'Teams channel thread';
    },
  };
  return adapter;
}
