/**
 * How Slack reaches the bot, through Bolt: Socket Mode (an app token; no
 * public URL needed) or HTTP (Slack posts signed requests to
 * `/slack/events`, through the door of signed-requests.ts, which refuses a
 * verified signature it has already seen).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, HTTPReceiver, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { HttpRoutes } from '../../src/bot/adapter-contract.js';
import { type Clock, sleep } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { ACTION_ID_PATTERN } from './buttons.js';
import { acknowledgeAlways, acknowledgeUnhandled, guardSocketMessages } from './dispatch.js';
import type { SlackInbound, SlackMessageEvent } from './inbound.js';
import type {
  BlockActionsPayload,
  ButtonAction,
  SlackInteractions,
  SlashCommandPayload,
} from './interactions.js';
import { admitSlackRequest, ReplayGuard } from './signed-requests.js';

/** Bolt's logger interface over pino. */
export function boltLogger(log: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const line = (parts: unknown[]) => parts.map((p) => (p instanceof Error ? p.message : String(p))).join(' ');
  return {
    debug: (...m: unknown[]) => log.debug(line(m)),
    info: (...m: unknown[]) => log.info(line(m)),
    warn: (...m: unknown[]) => log.warn(line(m)),
    error: (...m: unknown[]) => log.error(line(m)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

const STOP_WAIT_MS = 5000;

/** Options of {@link startTransport}. */
export interface TransportOptions {
  botToken: string;
  botId: string;
  botUserId: string;
  appToken?: string;
  signingSecret?: string;
  port: number;
  host?: string;
  /** HTTP mode: served before Slack's handler (health and metrics), without a signature. */
  routes?: HttpRoutes;
  commandName: string;
  /** Socket Mode: how long to wait for a pong, and the base delay before reconnecting (Bolt's default 5000 ms). */
  socketPingTimeoutMs?: number;
  clientOptions: { slackApiUrl?: string; retryConfig: { retries: number }; timeout: number };
  logger: Logger;
  clock: Clock;
  inbound: SlackInbound;
  interactions: SlackInteractions;
}

/** A running transport. */
export interface Transport {
  /** Undefined while events can arrive (the socket is up, the server listening), else why not. */
  health(): string | undefined;
  /** HTTP mode: where Slack must post (`http://host:port/slack/events`). */
  url?: string;
  /** HTTP mode: how many verified signatures the replay guard holds now. */
  rememberedSignatures?: () => number;
  stop(): Promise<void>;
}

/** What the adapter listens for on an App: the options {@link register} reads. */
export type ListenerOptions = Pick<TransportOptions, 'commandName' | 'logger' | 'inbound' | 'interactions'>;

function register(app: App, o: ListenerOptions): void {
  acknowledgeUnhandled(app, o.logger);
  acknowledgeAlways(app, o.logger);
  listen(app, o);
  app.error(async (err) => {
    o.logger.error({ err }, 'Slack event handling failed');
  });
}

/**
 * The adapter's listeners: messages and mentions, its slash command and its
 * own buttons. On an App someone else built these are all it adds: Bolt runs
 * every matching listener, so theirs keep working, and the App's error
 * handler and its answers to other payloads stay theirs.
 */
export function listen(app: App, o: ListenerOptions): void {
  const onEvent = async ({ body, event }: { body: { event_id?: string }; event: unknown }) => {
    await o.inbound.onEvent(body.event_id, event as SlackMessageEvent);
  };
  app.event('message', onEvent);
  app.event('app_mention', onEvent);
  app.command(o.commandName, async ({ ack, command, respond }) => {
    await ack();
    await o.interactions.onCommand(command as SlashCommandPayload, async (text) => {
      await respond({ response_type: 'ephemeral', text });
    });
  });
  app.action({ type: 'block_actions', action_id: ACTION_ID_PATTERN }, async ({ ack, body, action }) => {
    await ack();
    await o.interactions.onButton(body as unknown as BlockActionsPayload, action as unknown as ButtonAction);
  });
}

/** Starts Socket Mode when an app token is given, else the HTTP receiver. */
export async function startTransport(o: TransportOptions): Promise<Transport> {
  const logger = boltLogger(o.logger);
  const common = {
    token: o.botToken,
    botId: o.botId,
    botUserId: o.botUserId,
    logger,
    clientOptions: { ...o.clientOptions },
  };
  if (o.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: o.appToken,
      logger,
      ...(o.socketPingTimeoutMs ? { clientPingTimeout: o.socketPingTimeoutMs } : {}),
      installerOptions: { clientOptions: { ...o.clientOptions } },
    });
    guardSocketMessages(receiver.client, o.logger);
    const app = new App({ ...common, receiver });
    register(app, o);
    try {
      await app.start();
    } catch (err) {
      await receiver.client.disconnect().catch(() => {});
      throw new SwitchboardError(
        'PLATFORM_AUTH',
        `Slack Socket Mode did not connect: ${err instanceof Error ? err.message : String(err)}. ` +
          'Check SLACK_APP_TOKEN (xapp-..., with the connections:write scope) and that Socket Mode is enabled for the app.',
        { cause: err },
      );
    }
    // The client reconnects by itself; until it has, no event can arrive.
    let connected = true;
    receiver.client.on('connected', () => {
      connected = true;
    });
    for (const state of ['disconnected', 'reconnecting'])
      receiver.client.on(state, () => {
        connected = false;
      });
    return {
      health: () => (connected ? undefined : 'the Socket Mode connection is down (reconnecting)'),
      // disconnect() waits for the close handshake; a socket already gone mid-reconnect may never
      // report it, so stopping is capped rather than left hanging.
      stop: () => Promise.race([receiver.client.disconnect(), sleep(o.clock, STOP_WAIT_MS)]),
    };
  }
  if (!o.signingSecret)
    throw new SwitchboardError(
      'CONFIG_INVALID',
      'Slack needs SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode).',
      { detail: { variable: 'SLACK_APP_TOKEN' } },
    );
  const receiver = new HTTPReceiver({ signingSecret: o.signingSecret, logger });
  const app = new App({ ...common, receiver });
  register(app, o);
  const door = { signingSecret: o.signingSecret, guard: new ReplayGuard(o.clock), logger: o.logger };
  const server: Server = createServer((req, res) => {
    if (o.routes?.handle(req, res)) return;
    admitSlackRequest(req, res, door).then(
      (admission) => {
        if (admission === 'pass') receiver.requestListener(req, res);
      },
      (err: unknown) => {
        o.logger.error({ err }, 'Slack request could not be read');
        if (!res.headersSent) res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}/slack/events`,
    rememberedSignatures: () => door.guard.size,
    health: () => (server.listening ? undefined : 'the HTTP server is not listening'),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
