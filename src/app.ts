/**
 * The ready bot, assembled from a {@link Config}: stores in the data
 * directory, the Anthropic provider, one adapter per configured platform (the
 * console when none is), and the bot core. `npm start` runs exactly this, and
 * the adapters' integration tests start it the same way.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import type { DiscordAdapterOptions } from '../adapters/discord/index.js';
import type { SlackAdapterOptions } from '../adapters/slack/index.js';
import type { TelegramAdapterOptions } from '../adapters/telegram/index.js';
import type { Config } from '../config/index.js';
import type { ChatAdapter } from './bot/adapter-contract.js';
import { type Bot, type BotOptions, createBot } from './bot/index.js';
import { type Clock, systemClock } from './clock.js';
import { createMemoryChatLease, createMemoryControlBus } from './cluster/index.js';
import type { ChatLease, ControlBus } from './cluster/types.js';
import { createLogger, type Logger } from './logger.js';
import { AnthropicProvider } from './provider/index.js';
import { requireSandbox, Sandbox, sandboxWarning } from './sandbox/index.js';
import { createBotStateStore, createUserSessionStore } from './store/index.js';
import type { BotStateStore, SessionStore } from './store/types.js';
import { scrubbedEnv } from './tools/index.js';

/** Things the caller may inject (tests pass a capturing logger, a console stream). */
export interface AppDeps {
  logger?: Logger;
  clock?: Clock;
  /** Streams for the console adapter; default stdin/stdout. */
  consoleIO?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
  /**
   * Extra adapter options merged over what the config gives (tests pass short
   * paces this way, so they run the same wiring as `npm start`).
   */
  adapterOptions?: {
    telegram?: Partial<TelegramAdapterOptions>;
    slack?: Partial<SlackAdapterOptions>;
    discord?: Partial<DiscordAdapterOptions>;
  };
  /** Bot options the config does not carry (tests: shorter stream timeouts, queue bounds). */
  botOptions?: Partial<Omit<BotOptions, 'adapters' | 'provider' | 'sessionStore' | 'stateStore'>>;
}

/** A running switchboard. */
export interface RunningApp {
  bot: Bot;
  adapters: ChatAdapter[];
  logger: Logger;
  /** Graceful stop: no new messages, running turns aborted with a notice, stores flushed. */
  stop(): Promise<void>;
}

/** The console user's key; the local operator already has the machine, so it is always allowed. */
export const CONSOLE_OPERATOR = 'console:operator';

/**
 * Starts every configured platform. Rejects (after stopping whatever had
 * started) when an adapter cannot start, e.g. a token the platform rejects.
 */
export async function startSwitchboard(config: Config, deps: AppDeps = {}): Promise<RunningApp> {
  // In console mode stdout is the chat; logs go to stderr so they do not interleave with replies.
  const logger =
    deps.logger ??
    createLogger({
      level: config.logLevel,
      secrets: config.secrets,
      ...(config.console ? { destination: pino.destination({ dest: 2, sync: false }) } : {}),
    });
  const clock = deps.clock ?? systemClock;
  // The data directory holds every conversation: the bot's user only.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // An older start may have made it 0755.
  await chmod(config.dataDir, 0o700);
  await mkdir(config.workspace, { recursive: true });
  const sandbox =
    deps.botOptions?.sandbox ?? new Sandbox({ ...config.sandbox, hidden: [config.dataDir, resolve('.env')] });
  // `required` refuses to start without it; `auto` starts, but says so loudly.
  const warning = sandboxWarning(await requireSandbox(sandbox));
  if (warning) logger.warn({ sandbox: config.sandbox.mode }, warning);

  const shared = await openSharedState(config, logger, clock);
  let adapters: ChatAdapter[];
  try {
    adapters = await createAdapters(config, logger, clock, deps);
  } catch (err) {
    await shared.close();
    throw err;
  }
  const allowedUsers = config.console ? [...config.allowedUsers, CONSOLE_OPERATOR] : config.allowedUsers;
  const admins = config.console ? [...config.admins, CONSOLE_OPERATOR] : config.admins;

  const bot = createBot({
    adapters,
    provider: new AnthropicProvider({
      apiKey: config.anthropic.apiKey,
      model: config.model,
      ...(config.anthropic.baseURL ? { baseURL: config.anthropic.baseURL } : {}),
    }),
    sessionStore: shared.sessionStore,
    stateStore: shared.stateStore,
    lease: shared.lease,
    bus: shared.bus,
    leaseTtlMs: config.leaseTtlMs,
    workspace: config.workspace,
    workspacePerChat: config.workspacePerChat,
    model: config.model,
    permissionMode: config.permissionMode,
    projectAccess: config.projectAccess,
    allowedUsers,
    admins,
    linkedUsers: config.linkedUsers,
    approvalTimeoutMs: config.approvalTimeoutMs,
    idleReleaseMs: config.idleReleaseMs,
    streamIdleTimeoutMs: config.streamIdleTimeoutMs,
    toolEnv: scrubbedEnv(process.env, config.secrets),
    sandbox,
    clock,
    logger,
    ...deps.botOptions,
  });

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      try {
        await bot.stop();
      } finally {
        await shared.close();
      }
    })();
    return stopping;
  };
  try {
    await bot.start();
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  logger.info(
    {
      platforms: adapters.map((a) => a.platform),
      model: config.model,
      store: config.database ? 'postgres' : 'files',
      replica: shared.lease.owner,
      // Set by discord.js's ShardingManager for each shard process (`npm run start:sharded`).
      ...(process.env.SHARDS ? { shards: process.env.SHARDS, shardCount: process.env.SHARD_COUNT } : {}),
    },
    'switchboard started',
  );
  return { bot, adapters, logger, stop };
}

/** Stores, lease and bus: PostgreSQL shared by replicas, or files and in-process ones. */
interface SharedState {
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  lease: ChatLease;
  bus: ControlBus;
  /** Bus and leases first (they use the pool), then the stores. */
  close(): Promise<void>;
}

async function openSharedState(config: Config, logger: Logger, clock: Clock): Promise<SharedState> {
  if (!config.database) {
    const lease = createMemoryChatLease({ clock, logger });
    const bus = createMemoryControlBus({ clock, logger });
    return {
      sessionStore: createUserSessionStore(join(config.dataDir, 'sessions'), { logger }),
      stateStore: createBotStateStore(config.dataDir, { logger }),
      lease,
      bus,
      async close() {
        await Promise.allSettled([bus.close(), lease.close()]);
      },
    };
  }
  // Loaded only when configured, so the file-store path never imports the driver.
  const { createPostgresStores } = await import('./store/postgres/index.js');
  const { createPostgresChatLease, createPostgresControlBus } = await import('./cluster/index.js');
  const pgLogger = logger.child({ component: 'postgres' });
  const stores = createPostgresStores({
    connectionString: config.database.url,
    logger: pgLogger,
    clock,
    ...(config.database.schema ? { schema: config.database.schema } : {}),
  });
  try {
    await stores.migrate();
  } catch (err) {
    await stores.close().catch(() => {});
    throw err;
  }
  const cluster = { pool: stores.pool, schema: stores.schema, logger: pgLogger };
  const lease = createPostgresChatLease({ ...cluster, clock });
  const bus = createPostgresControlBus({ ...cluster, clock });
  return {
    sessionStore: stores.sessionStore,
    stateStore: stores.stateStore,
    lease,
    bus,
    async close() {
      await Promise.allSettled([bus.close(), lease.close()]);
      await stores.close();
    },
  };
}

/** Loads only the adapters that are configured, so an unused SDK is never imported. */
async function createAdapters(
  config: Config,
  logger: Logger,
  clock: Clock,
  deps: AppDeps,
): Promise<ChatAdapter[]> {
  const adapters: ChatAdapter[] = [];
  if (config.telegram) {
    const { createTelegramAdapter } = await import('../adapters/telegram/index.js');
    adapters.push(
      createTelegramAdapter({
        token: config.telegram.token,
        ...(config.telegram.apiRoot ? { apiRoot: config.telegram.apiRoot } : {}),
        ...(config.telegram.webhook ? { webhook: config.telegram.webhook } : {}),
        logger: logger.child({ platform: 'telegram' }),
        clock,
        ...deps.adapterOptions?.telegram,
      }),
    );
  }
  if (config.slack) {
    const { createSlackAdapter } = await import('../adapters/slack/index.js');
    adapters.push(
      createSlackAdapter({
        botToken: config.slack.botToken,
        port: config.slack.port,
        commandName: config.slack.commandName,
        ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
        ...(config.slack.signingSecret ? { signingSecret: config.slack.signingSecret } : {}),
        ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
        logger: logger.child({ platform: 'slack' }),
        ...deps.adapterOptions?.slack,
      }),
    );
  }
  if (config.discord) {
    const { createDiscordAdapter } = await import('../adapters/discord/index.js');
    adapters.push(
      createDiscordAdapter({
        token: config.discord.token,
        ...(config.discord.apiUrl ? { apiUrl: config.discord.apiUrl } : {}),
        ...(config.discord.guildId ? { guildId: config.discord.guildId } : {}),
        logger: logger.child({ platform: 'discord' }),
        ...deps.adapterOptions?.discord,
      }),
    );
  }
  if (config.console) {
    const { createConsoleAdapter } = await import('../adapters/console/index.js');
    adapters.push(createConsoleAdapter(deps.consoleIO ?? { input: process.stdin, output: process.stdout }));
  }
  return adapters;
}
