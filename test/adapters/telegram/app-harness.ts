/**
 * Starts switchboard exactly as `npm start` does (loadConfig from an env,
 * then startSwitchboard) against the fake Bot API and the fake Anthropic
 * API, with data in a temp directory that a test may reuse for a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTelegramAdapter,
  type TelegramAdapterOptions,
  type TelegramPaces,
} from '../../../adapters/telegram/index.js';
import { loadConfig } from '../../../config/index.js';
import { type RunningApp, startSwitchboard } from '../../../src/app.js';
import { createBot } from '../../../src/bot/index.js';
import { AnthropicProvider } from '../../../src/provider/index.js';
import { createSessionFactory } from '../../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../../src/store/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import {
  type FakeTelegram,
  type FakeTelegramOptions,
  startFakeTelegram,
} from '../../fakes/telegram/index.js';
import { scaledTelegram } from '../../helpers/telegram-scale.js';
import { captureLogger } from './helpers.js';

/** The provider key; tests check it never reaches a chat or a log line. */
export const API_KEY = 'sk-ant-telegram-e2e-key-0123456789';

/** Ann (11) and Bob (22) are allowed; Eve (33) is not. */
export const ANN = { id: 11, first_name: 'Ann' };
export const BOB = { id: 22, first_name: 'Bob', username: 'bob' };

/** Fakes plus a data directory, shared by the app starts of one test. */
export interface AppWorld {
  telegram: FakeTelegram;
  anthropic: FakeAnthropic;
  root: string;
  env(extra?: Record<string, string>): Record<string, string>;
  /**
   * Starts the app; stopped by {@link AppWorld.close} if still running.
   * `telegram` overrides adapter options no setting reaches (a short download timeout).
   */
  start(
    extra?: Record<string, string>,
    telegram?: Partial<TelegramAdapterOptions>,
  ): Promise<RunningApp & { lines: string[] }>;
  /**
   * Starts the same parts as {@link AppWorld.start} (the real Telegram
   * adapter, core, provider and stores) wired by hand, so a test can declare
   * shorter paces; the fake's limits must be scaled by the same factor.
   */
  startWithPaces(paces: Partial<TelegramPaces>): Promise<{ stop(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * Starts the fakes. `scale`: Telegram's limits and paces divided by this on
 * both sides (test/helpers/telegram-scale.ts), for tests that send many
 * messages and assert what happens to them, not the pace.
 */
export async function createAppWorld(
  telegramOptions: FakeTelegramOptions = {},
  options: { scale?: number } = {},
): Promise<AppWorld> {
  const scaled = options.scale === undefined ? undefined : scaledTelegram(options.scale);
  const telegram = await startFakeTelegram({
    ...telegramOptions,
    ...(scaled ? { limits: scaled.limits } : {}),
  });
  const anthropic = await startFakeAnthropic();
  const root = await mkdtemp(join(tmpdir(), 'switchboard-telegram-'));
  const running: RunningApp[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
    SWITCHBOARD_DATA_DIR: join(root, 'data'),
    SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
    SWITCHBOARD_ALLOWED_USERS: 'telegram:11,telegram:22',
    ...extra,
  });
  return {
    telegram,
    anthropic,
    root,
    env,
    async start(extra, telegramOptions) {
      const { logger, lines } = captureLogger();
      const config = loadConfig({ env: env(extra), argv: [], cwd: root });
      const adapter = { ...(scaled ? { paces: scaled.paces } : {}), ...telegramOptions };
      const app = await startSwitchboard(config, {
        logger,
        ...(Object.keys(adapter).length ? { adapterOptions: { telegram: adapter } } : {}),
      });
      running.push(app);
      const stop = async () => {
        running.splice(running.indexOf(app), 1);
        await app.stop();
      };
      return { ...app, stop, lines };
    },
    async startWithPaces(paces) {
      const { logger } = captureLogger();
      const bot = createBot({
        adapters: [createTelegramAdapter({ token: telegram.token, apiUrl: telegram.url, paces, logger })],
        sessions: createSessionFactory({
          provider: new AnthropicProvider({ apiKey: API_KEY, baseURL: anthropic.url }),
          sessionStore: createUserSessionStore(join(root, 'data', 'sessions'), { logger }),
          workspace: join(root, 'workspace'),
          logger,
        }),
        stores: { state: createBotStateStore(join(root, 'data'), { logger }) },
        access: { allowedUsers: ['telegram:11', 'telegram:22'] },
        logger,
      });
      await bot.start();
      const app = { bot, adapters: [], logger, stop: () => bot.stop() } as unknown as RunningApp;
      running.push(app);
      return app;
    },
    async close() {
      for (const app of running.splice(0)) await app.stop().catch(() => undefined);
      await telegram.close();
      await anthropic.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
