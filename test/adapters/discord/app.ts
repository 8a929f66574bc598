/**
 * The ready bot as `npm start` runs it (startSwitchboard(loadConfig(env)))
 * against a fake Discord and the fake Anthropic API, for end-to-end tests.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createDiscordAdapter, type DiscordAdapterOptions } from '../../../adapters/discord/index.js';
import { loadConfig } from '../../../config/index.js';
import { type RunningApp, startSwitchboard } from '../../../src/app.js';
import { createBot } from '../../../src/bot/index.js';
import { silentLogger } from '../../../src/logger.js';
import { createMetrics } from '../../../src/ops/metrics.js';
import { AnthropicProvider } from '../../../src/provider/index.js';
import { createSessionFactory } from '../../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../../src/store/index.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import type { FakeDiscord, FakeMessage } from '../../fakes/discord/index.js';

/**
 * Starts switchboard with only Discord configured; alice and bob are allowed,
 * nobody is admin. `scaled`: Discord's pace divided by ten on both sides
 * ({@link SCALED}), for tests that send many messages to one channel and
 * assert what happens to them, not the pace. `env`: settings added to the
 * configuration.
 */
export async function startApp(
  fake: FakeDiscord,
  anthropic: FakeAnthropic,
  root: string,
  options: { scaled?: boolean; env?: Record<string, string> } = {},
): Promise<RunningApp> {
  if (options.scaled) fake.rateLimit = SCALED.fake;
  const config = loadConfig({
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-discord-e2e-0123456789',
      ANTHROPIC_BASE_URL: anthropic.url,
      DISCORD_BOT_TOKEN: fake.token,
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_GUILD_ID: fake.guildId,
      SWITCHBOARD_DATA_DIR: join(root, 'data'),
      SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
      SWITCHBOARD_ALLOWED_USERS: `discord:${fake.user('alice').id},discord:${fake.user('bob').id}`,
      SWITCHBOARD_LOG_LEVEL: 'silent',
      ...options.env,
    },
    argv: [],
    cwd: root,
  });
  return startSwitchboard(config, {
    logger: silentLogger,
    ...(options.scaled ? { adapterOptions: { discord: { paces: scaledPaces() } } } : {}),
  });
}

/**
 * Discord's pace scaled down tenfold (edits 100 ms apart, 5 writes per 500 ms
 * per channel) on both sides: the fake enforces it and the adapter declares
 * it, so a test runs in a tenth of the time under the same rules.
 */
export const SCALED = { fake: { count: 5, windowMs: 500 }, minEditIntervalMs: 100 };

/** The adapter's side of {@link SCALED}. */
const scaledPaces = () => ({ minEditIntervalMs: SCALED.minEditIntervalMs, budget: SCALED.fake });

/** The same parts as {@link startApp}, wired with createBot so the Discord pace can be scaled. */
export async function startScaledApp(
  fake: FakeDiscord,
  anthropic: FakeAnthropic,
  root: string,
  adapterOptions: Partial<DiscordAdapterOptions> = {},
): Promise<RunningApp> {
  fake.rateLimit = SCALED.fake;
  const workspace = join(root, 'workspace');
  await mkdir(workspace, { recursive: true });
  const adapter = createDiscordAdapter({
    token: fake.token,
    apiUrl: fake.apiUrl,
    guildId: fake.guildId,
    paces: scaledPaces(),
    ...adapterOptions,
  });
  const bot = createBot({
    adapters: [adapter],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({ apiKey: 'sk-ant-discord-e2e-0123456789', baseURL: anthropic.url }),
      sessionStore: createUserSessionStore(join(root, 'data', 'sessions')),
      workspace,
    }),
    stores: { state: createBotStateStore(join(root, 'data')) },
    access: { allowedUsers: [`discord:${fake.user('alice').id}`, `discord:${fake.user('bob').id}`] },
    logger: silentLogger,
  });
  await bot.start();
  return { bot, adapters: [adapter], logger: silentLogger, metrics: createMetrics(), stop: () => bot.stop() };
}

/** The bot's messages in a channel that have visible text (interaction placeholders left out). */
export function botTexts(fake: FakeDiscord, channelId: string): FakeMessage[] {
  return fake.botMessages(channelId).filter((m) => m.content.length > 0 && m.interactionId === undefined);
}

/** The last text of the user's turn as the model saw it in the newest request. */
export function lastUserText(anthropic: FakeAnthropic): string {
  const body = anthropic.requests.at(-1);
  const messages = (body?.messages ?? []) as {
    role: string;
    content: string | { type: string; text?: string }[];
  }[];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n');
}
