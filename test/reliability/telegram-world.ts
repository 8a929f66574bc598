/**
 * The real Telegram adapter (grammy against the fake Bot API), the real bot
 * core, sessions and file stores, and the real Anthropic SDK against its
 * fake, wired the way src/app.ts wires them but with Telegram's paces scaled
 * down by one factor on both sides: the fake enforces `limits / factor` and
 * the adapter declares `paces / factor`, so a run keeps Telegram's rules in a
 * fraction of the time. Logs go through the project's own logger (with the
 * configured secrets) into `lines`, so tests can grep everything it wrote.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTelegramAdapter, type TelegramAdapter } from '../../adapters/telegram/index.js';
import { type Bot, createBot } from '../../src/bot/index.js';
import { createLogger } from '../../src/logger.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import { createSessionFactory } from '../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../src/store/index.js';
import { scrubbedEnv } from '../../src/tools/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeTelegram, type FakeTelegramOptions, startFakeTelegram } from '../fakes/telegram/index.js';
import { scaledTelegram } from '../helpers/telegram-scale.js';

/** Secrets of a world; every test greps logs and chats for them. */
export const TG_TOKEN = '424242:RELIABILITY-telegram-token-xyz';
export const TG_API_KEY = 'sk-ant-reliability-key-0123456789abcdef';

/** Options of {@link startTelegramWorld}. */
export interface TelegramWorldOptions {
  /** Telegram's limits and paces are divided by this (1 = real). */
  factor: number;
  fake?: Omit<FakeTelegramOptions, 'limits' | 'token'>;
  /** Allowed Telegram user ids. */
  allowed: number[];
  admins?: number[];
  /** SDK retries of the Anthropic client (default 2, as in the ready bot). */
  maxRetries?: number;
  permissionMode?: 'default' | 'bypassPermissions';
  /** The adapter's deadline for one outbox call (default: the adapter's). */
  callTimeoutMs?: number;
}

/** A running world. */
export interface TelegramWorld {
  telegram: FakeTelegram;
  anthropic: FakeAnthropic;
  adapter: TelegramAdapter;
  bot: Bot;
  root: string;
  /** Every line the bot logged. */
  lines: string[];
  /** Texts of the bot's messages in a chat, oldest first. */
  texts(chatId: number): string[];
  close(): Promise<void>;
}

/** Starts fakes, adapter and core; see the module comment for the scaling. */
export async function startTelegramWorld(options: TelegramWorldOptions): Promise<TelegramWorld> {
  const scaled = scaledTelegram(options.factor);
  const telegram = await startFakeTelegram({ ...options.fake, token: TG_TOKEN, limits: scaled.limits });
  const anthropic = await startFakeAnthropic();
  const root = await mkdtemp(join(tmpdir(), 'switchboard-reliability-'));
  const lines: string[] = [];
  const secrets = [TG_TOKEN, TG_API_KEY];
  const logger = createLogger({
    level: 'debug',
    secrets,
    destination: { write: (line: string) => void lines.push(line) } as never,
  });
  const adapter = createTelegramAdapter({
    token: TG_TOKEN,
    apiUrl: telegram.url,
    logger: logger.child({ platform: 'telegram' }),
    ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    paces: scaled.paces,
  });
  const bot = createBot({
    adapters: [adapter],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({
        apiKey: TG_API_KEY,
        baseURL: anthropic.url,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      }),
      sessionStore: createUserSessionStore(join(root, 'data', 'sessions'), { logger }),
      workspace: join(root, 'workspace'),
      permissionMode: options.permissionMode ?? 'default',
      toolEnv: scrubbedEnv(process.env, secrets),
      logger,
    }),
    stores: { state: createBotStateStore(join(root, 'data'), { logger }) },
    access: {
      allowedUsers: options.allowed.map((id) => `telegram:${id}`),
      admins: (options.admins ?? []).map((id) => `telegram:${id}`),
    },
    logger,
  });
  await bot.start();
  let closed = false;
  return {
    telegram,
    anthropic,
    adapter,
    bot,
    root,
    lines,
    texts: (chatId) => telegram.botMessages(chatId).map((m) => m.text),
    async close() {
      if (closed) return;
      closed = true;
      await bot.stop().catch(() => undefined);
      await telegram.close();
      await anthropic.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Collects unhandled rejections while a test runs; call the returned function to stop listening. */
export function watchUnhandled(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown) => errors.push(reason);
  const onException = (err: unknown) => errors.push(err);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    errors,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}
