/**
 * Telegram as a platform module: its TELEGRAM_* settings, how its people's
 * ids look, and `create()`, which loads grammY only when Telegram is
 * configured.
 */
import type { z } from 'zod';
import { optionalString, port, url } from '../../config/fields.js';
import { definePlatform } from '../../src/bot/platform-module.js';
import type { TelegramAdapterOptions } from './index.js';
import { telegramMarkdown } from './markdown.js';

const env = {
  TELEGRAM_BOT_TOKEN: optionalString.refine((v) => v === undefined || /^\d+:[A-Za-z0-9_-]{10,}$/.test(v), {
    message: 'does not look like a bot token (expected 123456:ABC..., as @BotFather gives it)',
  }),
  TELEGRAM_API_ROOT: url('a local Bot API server'),
  TELEGRAM_WEBHOOK_URL: url('the public URL Telegram posts updates to'),
  TELEGRAM_WEBHOOK_SECRET: optionalString.refine((v) => v === undefined || /^[A-Za-z0-9_-]{1,256}$/.test(v), {
    message: 'expected 1-256 characters of A-Z, a-z, 0-9, _ and -',
  }),
  TELEGRAM_WEBHOOK_PORT: port(8080),
};

type Env = z.output<z.ZodObject<typeof env>>;

/** Telegram's settings, present when TELEGRAM_BOT_TOKEN is set. */
export interface TelegramSettings {
  token: string;
  /** A local Bot API server, without a trailing slash. */
  apiUrl?: string;
  /** Webhook mode instead of long polling (TELEGRAM_WEBHOOK_*). */
  webhook?: { url: string; secret: string; port: number };
}

export default definePlatform<TelegramSettings, TelegramAdapterOptions>({
  id: 'telegram',
  title: 'Telegram',
  // A user's id is a positive integer (https://core.telegram.org/bots/api#user).
  userId: /^\d{1,20}$/,
  exampleUserId: '123456',
  env,
  secrets: ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET'],
  packages: ['grammy', '@grammyjs/runner', '@grammyjs/auto-retry'],
  settings(raw, problem) {
    const e = raw as Env;
    if (e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_WEBHOOK_SECRET)
      problem(
        'TELEGRAM_WEBHOOK_SECRET',
        'is needed with TELEGRAM_WEBHOOK_URL so that only Telegram can post updates',
      );
    if (!e.TELEGRAM_BOT_TOKEN) {
      if (e.TELEGRAM_WEBHOOK_URL) problem('TELEGRAM_BOT_TOKEN', 'is not set, but TELEGRAM_WEBHOOK_URL is');
      return undefined;
    }
    return {
      token: e.TELEGRAM_BOT_TOKEN,
      ...(e.TELEGRAM_API_ROOT ? { apiUrl: e.TELEGRAM_API_ROOT.replace(/\/+$/, '') } : {}),
      ...(e.TELEGRAM_WEBHOOK_URL && e.TELEGRAM_WEBHOOK_SECRET
        ? {
            webhook: {
              url: e.TELEGRAM_WEBHOOK_URL,
              secret: e.TELEGRAM_WEBHOOK_SECRET,
              port: e.TELEGRAM_WEBHOOK_PORT,
            },
          }
        : {}),
    };
  },
  dialect: telegramMarkdown,
  // A private chat while the server has rich messages (capabilities.ts; a test keeps the two equal).
  capabilities: {
    maxMessageLength: 32_768,
    buttonPayloadLimit: 64,
    maxUploadBytes: 50 * 1024 * 1024,
    maxCaptionLength: 1024,
    nativeStream: true,
    privateChat: true,
  },
  async create(settings, context, overrides) {
    const { createTelegramAdapter } = await import('./index.js');
    return createTelegramAdapter({
      token: settings.token,
      ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
      ...(settings.webhook ? { webhook: { ...settings.webhook, routes: context.routes } } : {}),
      logger: context.logger,
      clock: context.clock,
      maxFileBytes: context.maxFileBytes,
      mentions: context.mentions,
      ...overrides,
    });
  },
});
