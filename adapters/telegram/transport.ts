/**
 * How updates arrive: long polling through @grammyjs/runner (default), or a
 * webhook on a node:http server that checks Telegram's secret-token header.
 * Both ask for exactly the update types the bot handles; Telegram sends
 * `stopped_message_generation` only when asked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunnerHandle, run } from '@grammyjs/runner';
import { type Bot, webhookCallback } from 'grammy';
import type { HttpRoutes } from '../../src/bot/adapter-contract.js';
import type { Logger } from '../../src/logger.js';

/** The update types the adapter handles. */
export const ALLOWED_UPDATES = [
  'message',
  'edited_message',
  'callback_query',
  'stopped_message_generation',
] as const;

/** A running transport. */
export interface Transport {
  stop(): Promise<void>;
  /** Undefined while updates can arrive, else why not. */
  health(): string | undefined;
  /** The local port a webhook server listens on. */
  port?: number;
}

/** Webhook settings: the public URL Telegram posts to, the secret, and where to listen. */
export interface WebhookOptions {
  url: string;
  secret?: string;
  port: number;
  host?: string;
  /** Served before the webhook (health and metrics), without the secret. */
  routes?: HttpRoutes;
}

/**
 * Long polling. getUpdates failures are logged (by the API transformer) and
 * retried by the runner with a growing pause, for as long as it takes; only
 * a rejected token or a second bot polling the same token ends it, with an
 * error in the log.
 */
export async function startPolling(
  bot: Bot,
  logger: Logger,
  lastUpdateId: () => number | undefined,
): Promise<Transport> {
  await bot.api.deleteWebhook();
  const runner: RunnerHandle = run(bot, {
    runner: {
      fetch: { allowed_updates: [...ALLOWED_UPDATES], timeout: 30 },
      retryInterval: 'quadratic',
      maxRetryTime: Number.POSITIVE_INFINITY,
      silent: true,
    },
  });
  void runner.task()?.catch((err: unknown) => {
    const description =
      (err as { description?: string }).description ?? (err instanceof Error ? err.message : String(err));
    logger.error(
      { err: description },
      'Telegram polling stopped: check the token and that no other process polls with it',
    );
  });
  return {
    health: () => (runner.isRunning() ? undefined : 'long polling has stopped'),
    async stop() {
      if (runner.isRunning()) await runner.stop();
      // Confirm what was handled, so a restart does not fetch it again.
      const last = lastUpdateId();
      if (last !== undefined) {
        await bot.api.getUpdates({ offset: last + 1, limit: 1, timeout: 0 }).catch(() => undefined);
      }
    },
  };
}

/** Webhook mode: a wrong or missing secret token is answered 401 by grammy's callback. */
export async function startWebhook(bot: Bot, options: WebhookOptions, logger: Logger): Promise<Transport> {
  const callback = webhookCallback(bot, 'http', {
    ...(options.secret ? { secretToken: options.secret } : {}),
    onTimeout: 'return',
    timeoutMilliseconds: 10_000,
  });
  const server: Server = createServer((req, res) => {
    if (options.routes?.handle(req, res)) return;
    callback(req, res).catch((err: unknown) => {
      logger.error(
        { err: err instanceof Error ? err.message : String(err) },
        'Telegram webhook request failed',
      );
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  try {
    await bot.api.setWebhook(options.url, {
      ...(options.secret ? { secret_token: options.secret } : {}),
      allowed_updates: [...ALLOWED_UPDATES],
    });
  } catch (err) {
    server.closeAllConnections();
    server.close();
    throw err;
  }
  logger.info({ port }, 'Telegram webhook listening');
  return {
    port,
    health: () => (server.listening ? undefined : 'the webhook server is not listening'),
    async stop() {
      // The webhook stays registered: other replicas may still be serving it.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
