/**
 * A switchboard bot with only Teams, built from `createBot` with the real
 * Teams adapter (and through it the real Teams SDK) pointed at the fake
 * Bot Connector and identity, and the real session engine against the fake
 * Anthropic API. The adapter listens on a free loopback port; the fake is
 * told where to post. Both sides run at Teams' pace divided by
 * {@link TEAMS_SCALE} (scale.ts): start the fake with {@link startScaledFakeTeams}.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createTeamsAdapter,
  type TeamsAdapter,
  type TeamsAdapterOptions,
} from '../../../adapters/teams/index.js';
import { createBot } from '../../../src/bot/index.js';
import type { Bot } from '../../../src/bot/options.js';
import { silentLogger } from '../../../src/logger.js';
import { AnthropicProvider } from '../../../src/provider/index.js';
import { createSessionFactory } from '../../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../../src/store/index.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import {
  type ChannelAccount,
  type FakeTeams,
  type FakeTeamsOptions,
  type StoredActivity,
  startFakeTeams,
} from '../../fakes/teams/index.js';
import { scaledTeams, TEAMS_SCALE } from './scale.js';

/** Teams' pace divided by {@link TEAMS_SCALE} on both sides. */
const SCALED = scaledTeams(TEAMS_SCALE);

/** The fake Teams enforcing the scaled limits the bot of {@link startTeamsBot} declares. */
export function startScaledFakeTeams(options: FakeTeamsOptions = {}): Promise<FakeTeams> {
  return startFakeTeams({ ...options, limits: { ...SCALED.limits, ...options.limits } });
}

/** A running bot and its adapter. */
export interface TeamsBot {
  bot: Bot;
  adapter: TeamsAdapter;
  stop(): Promise<void>;
}

/**
 * Starts the bot with the scaled paces; `allowed` are the people on the
 * allowlist (by their Entra object id). `teams` must enforce the same
 * scale ({@link startScaledFakeTeams}).
 */
export async function startTeamsBot(
  teams: FakeTeams,
  anthropic: FakeAnthropic,
  root: string,
  allowed: ChannelAccount[],
  options: Partial<TeamsAdapterOptions> = {},
): Promise<TeamsBot> {
  const workspace = join(root, 'workspace');
  await mkdir(workspace, { recursive: true });
  const adapter = createTeamsAdapter({
    appId: teams.appId,
    appPassword: teams.appPassword,
    tenantId: teams.tenantId,
    authUrl: teams.tokenUrl(),
    openIdMetadataUrl: teams.openIdMetadataUrl,
    port: 0,
    host: '127.0.0.1',
    dataDir: join(root, 'data'),
    paces: SCALED.paces,
    ...options,
  });
  const bot = createBot({
    adapters: [adapter],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({ apiKey: 'sk-ant-teams-e2e-0123456789', baseURL: anthropic.url }),
      sessionStore: createUserSessionStore(join(root, 'data', 'sessions')),
      workspace,
    }),
    stores: { state: createBotStateStore(join(root, 'data')) },
    access: { allowedUsers: allowed.map((p) => `teams:${p.aadObjectId}`) },
    logger: silentLogger,
  });
  await bot.start();
  teams.setBotEndpoint(`http://127.0.0.1:${adapter.port}/api/messages`);
  return { bot, adapter, stop: () => bot.stop() };
}

/** A kept message's text. */
export const text = (a: StoredActivity) => String(a.activity.text ?? '');

/** Waits until the bot's newest message in the conversation reads `expected`. */
export async function replyIn(
  teams: FakeTeams,
  conversationId: string,
  expected: string,
): Promise<StoredActivity> {
  const last = () => teams.messages(conversationId).at(-1);
  await teams.waitForSent(() => {
    const message = last();
    return message !== undefined && text(message) === expected;
  });
  return last() as StoredActivity;
}
