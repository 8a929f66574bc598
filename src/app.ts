/**
 * The ready bot, assembled from a {@link Config}: stores in the data
 * directory, the Anthropic provider, one adapter per configured platform (the
 * console when none is), and the bot core. `npm start` runs exactly this, and
 * the adapters' integration tests start it the same way.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { consoleLogs } from '../adapters/console/log-destination.js';
import type { DiscordAdapterOptions } from '../adapters/discord/index.js';
import type { SlackAdapterOptions } from '../adapters/slack/index.js';
import type { TelegramAdapterOptions } from '../adapters/telegram/index.js';
import type { Config } from '../config/index.js';
import type { ChatAdapter } from './bot/adapter-contract.js';
import { type Bot, type BotLimits, type ClusterOptions, createBot } from './bot/index.js';
import { type Clock, systemClock } from './clock.js';
import { createLogger, type Logger } from './logger.js';
import { AnthropicProvider } from './provider/index.js';
import { createSessionFactory, type SessionFactoryOptions } from './session/factory.js';
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
  /** Limits the config does not carry (tests: queue bounds). */
  limits?: BotLimits;
  /** Session options the config does not carry (tests: shorter stream timeouts). */
  sessionOptions?: Partial<Omit<SessionFactoryOptions, 'sessionStore'>>;
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
  // In console mode the terminal is the chat; logs go where they do not interleave with replies.
  const consoleLog = config.console && !deps.logger ? consoleLogs(config.dataDir) : undefined;
  const logger =
    deps.logger ??
    createLogger({
      level: config.logLevel,
      secrets: config.secrets,
      ...(consoleLog ? { destination: consoleLog.destination } : {}),
    });
  const clock = deps.clock ?? systemClock;
  await mkdir(config.dataDir, { recursive: true });
  await mkdir(config.workspace, { recursive: true });

  const shared = await openSharedState(config, logger, clock);
  let adapters: ChatAdapter[];
  try {
    adapters = await createAdapters(config, logger, clock, deps, consoleLog?.file);
  } catch (err) {
    await shared.close();
    throw err;
  }
  const allowedUsers = config.console ? [...config.allowedUsers, CONSOLE_OPERATOR] : config.allowedUsers;
  const admins = config.console ? [...config.admins, CONSOLE_OPERATOR] : config.admins;

  const bot = createBot({
    adapters,
    sessions: createConfiguredSessions(config, shared.sessionStore, clock, logger, deps),
    stores: { state: shared.stateStore },
    access: { allowedUsers, admins, linkedUsers: config.linkedUsers },
    limits: {
      approvalTimeoutMs: config.approvalTimeoutMs,
      idleReleaseMs: config.idleReleaseMs,
      ...deps.limits,
    },
    ...(shared.cluster ? { cluster: { ...shared.cluster, leaseTtlMs: config.leaseTtlMs } } : {}),
    clock,
    logger,
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
      ...(shared.cluster ? { replica: shared.cluster.lease.owner } : {}),
      // Set by discord.js's ShardingManager for each shard process (`npm run start:sharded`).
      ...(process.env.SHARDS ? { shards: process.env.SHARDS, shardCount: process.env.SHARD_COUNT } : {}),
    },
    'switchboard started',
  );
  return { bot, adapters, logger, stop };
}

/**
 * The session factory of the ready bot: the one place its sessions get the
 * provider, the tools' workspace and environment, and their settings.
 */
function createConfiguredSessions(
  config: Config,
  sessionStore: SessionStore,
  clock: Clock,
  logger: Logger,
  deps: AppDeps,
) {
  return createSessionFactory({
    provider: new AnthropicProvider({
      apiKey: config.anthropic.apiKey,
      model: config.model,
      ...(config.anthropic.baseURL ? { baseURL: config.anthropic.baseURL } : {}),
    }),
    sessionStore,
    workspace: config.workspace,
    workspacePerChat: config.workspacePerChat,
    model: config.model,
    permissionMode: config.permissionMode,
    projectAccess: config.projectAccess,
    streamIdleTimeoutMs: config.streamIdleTimeoutMs,
    toolEnv: scrubbedEnv(process.env, config.secrets),
    clock,
    logger: logger.child({ component: 'bot' }),
    ...deps.sessionOptions,
  });
}

/** Stores, and for replicas the lease and bus: PostgreSQL shared by replicas, or files for one process. */
interface SharedState {
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  /** Only with PostgreSQL: one process on files shares nothing. */
  cluster?: Pick<ClusterOptions, 'lease' | 'bus'>;
  /** Bus and leases first (they use the pool), then the stores. */
  close(): Promise<void>;
}

async function openSharedState(config: Config, logger: Logger, clock: Clock): Promise<SharedState> {
  if (!config.database) {
    return {
      sessionStore: createUserSessionStore(join(config.dataDir, 'sessions'), { logger }),
      stateStore: createBotStateStore(config.dataDir, { logger }),
      async close() {},
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
    cluster: { lease, bus },
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
  consoleLogFile?: string,
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
    const io = deps.consoleIO ?? { input: process.stdin, output: process.stdout };
    adapters.push(
      createConsoleAdapter({
        ...io,
        historyFile: join(config.dataDir, 'console-history'),
        ...(consoleLogFile ? { logFile: consoleLogFile } : {}),
      }),
    );
  }
  return adapters;
}
