/**
 * The ready bot, assembled from a {@link Config}: stores in the data
 * directory, the Anthropic provider, one adapter per configured platform (the
 * console when none is), and the bot core. `npm start` runs exactly this, and
 * the adapters' integration tests start it the same way.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from '../config/index.js';
import {
  createAdapters,
  operatorKeys,
  TRUSTED_PLATFORMS,
  terminalChatRuns,
  warnWhenNobodyIsAllowed,
} from './app-platforms.js';
import { createConfiguredSessions, createMcpOAuth, voiceOptions } from './app-sessions.js';
import { openSharedState } from './app-stores.js';
import { type ChatAdapter, chatPlatform } from './bot/adapter-contract.js';
import { type Bot, type BotLimits, createBot } from './bot/index.js';
import { type Clock, systemClock } from './clock.js';
import { createLogger, type Logger } from './logger.js';
import type { McpServers } from './mcp/index.js';
import { createOpsRoutes, type OpsRoutes, startOpsServer } from './ops/http.js';
import { instrumentAdapter } from './ops/instrument-adapter.js';
import { createMetrics, type SwitchboardMetrics } from './ops/metrics.js';
import { costOf, type PriceTable, priceFor } from './provider/pricing.js';
import { requireSandbox, Sandbox, sandboxWarning } from './sandbox/index.js';
import type { SessionFactoryOptions } from './session/factory.js';
import { totalsOf } from './session/usage-ledger.js';
import { scrubbedEnv } from './tools/index.js';
import type { TokenUsage } from './vocabulary.js';

/** Things the caller may inject (tests pass a capturing logger, a console stream). */
export interface AppDeps {
  logger?: Logger;
  clock?: Clock;
  /**
   * Extra adapter options by platform id, merged over what the config gives
   * (tests pass short paces, or the terminal's streams, this way, so they run
   * the same wiring as `npm start`): `{ telegram: { paces } }`.
   */
  adapterOptions?: Readonly<Record<string, object>>;
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
  /** The bot's Prometheus metrics (served at /metrics). */
  metrics: SwitchboardMetrics;
  /** The MCP servers whose tools the agent has, when SWITCHBOARD_MCP_CONFIG is set. */
  mcp?: McpServers;
  /** The port of the server of its own for /healthz, /readyz and /metrics, when SWITCHBOARD_HTTP_PORT is set. */
  opsPort?: number;
  /** Graceful stop: no new messages, running turns aborted with a notice, stores flushed. */
  stop(): Promise<void>;
}

/**
 * Starts every configured platform. Rejects (after stopping whatever had
 * started) when an adapter cannot start, e.g. a token the platform rejects.
 */
export async function startSwitchboard(config: Config, deps: AppDeps = {}): Promise<RunningApp> {
  // The terminal chat owns its terminal: logs that would land between chat lines go to a file.
  const terminal = terminalChatRuns(config);
  const terminalLogFile =
    terminal && !config.logFile && !deps.logger && process.stderr.isTTY
      ? join(config.dataDir, 'switchboard.log')
      : undefined;
  const logger = deps.logger ?? createAppLogger(config, terminal, terminalLogFile);
  const clock = deps.clock ?? systemClock;
  // The data directory holds every conversation: the bot's user only.
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // An older start may have made it 0755.
  await chmod(config.dataDir, 0o700);
  await mkdir(config.workspace, { recursive: true });
  // The bot's own files, covered wherever a sandbox's mounts would show them.
  const hidden = [config.dataDir, resolve('.env'), config.logFile, terminalLogFile, config.mcp?.path];
  const sandbox =
    deps.sessionOptions?.sandbox ??
    new Sandbox({ ...config.sandbox, hidden: hidden.filter((path): path is string => path !== undefined) });
  // `required` refuses to start without it; `auto` starts without Bash, but says so loudly.
  const warning = sandboxWarning(await requireSandbox(sandbox, config.workspace));
  if (warning) logger.warn({ sandbox: config.sandbox.mode }, warning);

  const shared = await openSharedState(config, logger, clock);
  // A server that fails to start is left out with a warning (and retried); it never stops the bot.
  // Loaded only when configured, like an adapter's SDK.
  const oauth = await createMcpOAuth(config, shared.mcpCredentials, clock, logger);
  const mcp = config.mcp
    ? await (await import('./mcp/index.js')).startMcpServers({
        servers: config.mcp.servers,
        secrets: config.mcp.secrets,
        workspace: config.workspace,
        ...(config.mcp.callTimeoutMs === undefined ? {} : { callTimeoutMs: config.mcp.callTimeoutMs }),
        ...(oauth ? { oauth } : {}),
        baseEnv: scrubbedEnv(process.env, config.secrets),
        clock,
        logger,
      })
    : undefined;
  const metrics = createMetrics();
  let adapters: ChatAdapter[] = [];
  let bot: Bot | undefined;
  let ready = false;
  const opsRoutes = createOpsRoutes({
    metrics,
    logger,
    readiness: () => [
      { name: 'bot', check: () => (ready ? undefined : 'starting or stopping') },
      { name: 'store', check: shared.check },
      ...adapters.map((adapter) => ({ name: adapter.platform, check: () => adapter.health?.() })),
      { name: 'saves', check: () => unsavedChats(bot) },
    ],
  });
  // The MCP sign-in callback rides on the same port as the ops endpoints.
  const ops: OpsRoutes = oauth
    ? {
        handle: (req, res) => opsRoutes.handle(req, res) || oauth.handle(req, res),
      }
    : opsRoutes;
  try {
    adapters = await createAdapters(
      config,
      {
        logger,
        clock,
        maxFileBytes: config.maxFileBytes,
        mentions: config.mentions,
        routes: ops,
        dataDir: config.dataDir,
        ...(terminalLogFile ? { logFile: terminalLogFile } : {}),
      },
      deps.adapterOptions,
    );
  } catch (err) {
    await Promise.allSettled([shared.close(), mcp?.close()]);
    throw err;
  }
  for (const adapter of adapters) instrumentAdapter(adapter, metrics);
  warnWhenNobodyIsAllowed(config, logger);
  warnWhenInstructionsAreShared(config, logger);
  // The terminal's operator already has the machine: always allowed, and an admin.
  const operators = operatorKeys(config);
  const allowedUsers = [...config.allowedUsers, ...operators];
  const admins = [...config.admins, ...operators];

  bot = createBot({
    adapters,
    sessions: createConfiguredSessions(
      config,
      shared.sessionStore,
      clock,
      logger,
      deps.sessionOptions,
      sandbox,
      mcp,
    ),
    stores: { state: shared.stateStore, controls: shared.controlsStore },
    access: {
      allowedUsers,
      admins,
      linkedUsers: config.linkedUsers,
      trustedPlatforms: TRUSTED_PLATFORMS,
      approvers: config.approvers,
      selfApproval: config.selfApproval,
    },
    limits: {
      approvalTimeoutMs: config.approvalTimeoutMs,
      idleReleaseMs: config.idleReleaseMs,
      budgets: config.budgets,
      ...deps.limits,
    },
    ...(shared.cluster ? { cluster: { ...shared.cluster, leaseTtlMs: config.leaseTtlMs } } : {}),
    observer: {
      turnStarted: (chat) => metrics.turnStarted(chatPlatform(chat)),
      turnFinished: ({ chat, outcome, model, usage }) => {
        metrics.turnFinished(chatPlatform(chat), outcome);
        if (usage) metrics.modelUsage(model, usage, turnCost(model, usage, config.prices));
      },
      chatTakenOver: () => metrics.leaseTakeover(),
    },
    ...(config.transcription ? { voice: voiceOptions(config.transcription, clock) } : {}),
    schedules: { ...config.schedules, ...shared.schedules },
    clock,
    logger,
  });
  oauth?.whenSignedIn(async (server, chat) => {
    if (chat) await bot?.outbox.send(chat, `Signed in to the MCP server "${server}"; connecting it now.`);
  });
  metrics.observe({
    queueDepth: () => bot.stats().queued,
    activeTurns: () => bot.stats().running,
    loadedSessions: () => bot.stats().loadedSessions,
    pendingApprovals: () => bot.stats().pendingApprovals,
  });

  let opsServer: Awaited<ReturnType<typeof startOpsServer>> | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      ready = false;
      try {
        await bot.stop();
      } finally {
        await Promise.allSettled([shared.close(), opsServer?.close(), mcp?.close()]);
      }
    })();
    return stopping;
  };
  try {
    if (config.httpPort !== undefined) opsServer = await startOpsServer(ops, { port: config.httpPort });
    await bot.start();
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  ready = true;
  logger.info(
    {
      platforms: adapters.map((a) => a.platform),
      model: config.model,
      store: config.database ? 'postgres' : 'files',
      ...(mcp ? { mcp: mcp.servers().map((server) => `${server.name}: ${server.state}`) } : {}),
      ...(shared.cluster ? { replica: shared.cluster.lease.owner } : {}),
    },
    'switchboard started',
  );
  return {
    bot,
    adapters,
    logger,
    metrics,
    ...(mcp ? { mcp } : {}),
    ...(opsServer ? { opsPort: opsServer.port } : {}),
    stop,
  };
}

/** Undefined when every chat's last save succeeded, else how many are not being saved. */
function unsavedChats(bot: Bot | undefined): string | undefined {
  const failing = bot?.saveHealth.failing() ?? [];
  if (failing.length === 0) return undefined;
  const first = failing[0];
  return `${failing.length === 1 ? '1 chat is' : `${failing.length} chats are`} not being saved (${first?.error ?? 'unknown error'})`;
}

/** A turn's list-price cost in US dollars, or undefined when the model has no price. */
function turnCost(model: string, usage: TokenUsage, prices: PriceTable): number | undefined {
  const price = priceFor(model, prices);
  return price ? costOf(totalsOf(usage), price) : undefined;
}

/**
 * The ready bot's logger. In the terminal chat stdout is the conversation, so
 * logs go to SWITCHBOARD_LOG_FILE when set, else to stderr at warn level and
 * above: nothing routine appears between the chat's lines.
 */
function createAppLogger(config: Config, terminal: boolean, terminalLogFile: string | undefined): Logger {
  const base = { secrets: config.secrets, format: config.logFormat } as const;
  const file = config.logFile ?? terminalLogFile;
  if (file) return createLogger({ ...base, level: config.logLevel, file });
  if (!terminal) return createLogger({ ...base, level: config.logLevel });
  const quiet = LEVELS.indexOf(config.logLevel) < LEVELS.indexOf('warn') ? 'warn' : config.logLevel;
  return createLogger({ ...base, level: quiet, fd: 2 });
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * Design decision (trusted project access and one shared workspace): the
 * project's AGENTS.md / CLAUDE.md are loaded from the workspace, and with
 * one workspace for every chat that is the point (every chat works on the
 * same project, under the same instructions). It also means a file one
 * chat's approved command writes there becomes every chat's instructions.
 * Loading them per chat only would quietly drop the project's own files in
 * the shared set-up people choose trusted access for, so the bot keeps
 * loading them and says so once, at start, with the way out.
 */
function warnWhenInstructionsAreShared(config: Config, logger: Logger): void {
  if (config.projectAccess !== 'trusted' || config.workspacePerChat) return;
  logger.warn(
    { workspace: config.workspace },
    'Trusted project access with one shared workspace: AGENTS.md and CLAUDE.md there are every chat’s ' +
      'instructions, so a file one chat writes (an approved command, a Write) changes what the agent is told ' +
      'in every other chat. Set SWITCHBOARD_WORKSPACE_PER_CHAT=true to give each chat its own, or keep ' +
      'SWITCHBOARD_PROJECT_ACCESS=restricted where people should not steer each other.',
  );
}
