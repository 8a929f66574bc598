/**
 * switchboard: an AI agent session behind chat platforms.
 *
 * @example
 * import { AnthropicProvider, createBot, createBotStateStore, createSessionFactory, createUserSessionStore } from 'switchboard';
 * import { createTelegramAdapter } from 'switchboard/telegram';
 *
 * const bot = createBot({
 *   adapters: [createTelegramAdapter({ token: process.env.TELEGRAM_BOT_TOKEN! })],
 *   sessions: createSessionFactory({
 *     provider: new AnthropicProvider({ apiKey: process.env.ANTHROPIC_API_KEY! }),
 *     sessionStore: createUserSessionStore('./data/sessions'),
 *     workspace: './workspace',
 *   }),
 *   stores: { state: createBotStateStore('./data') },
 *   access: { allowedUsers: ['telegram:123456'] },
 * });
 * await bot.start();
 */

// Rendering: the core's dialects here, each platform's from its adapter (`telegramHtml` from 'switchboard/telegram').
export { markdown, plain, renderMarkdown, splitMarkdown, toPlainText } from './bot/format/index.js';
// One file, one name: the session's file to send is the contract's without `kind`; the contract's is public.
export type { OutboundFile } from './bot/index.js';
// The bot core and the adapter contract.
export * from './bot/index.js';
export { createOutbox } from './bot/stream/index.js';
export type { DeliveredReply, Outbox, ReplyStream, SendOptions, StreamOptions } from './bot/stream/types.js';
// Time, errors and logging.
export { type Clock, flushMicrotasks, sleep, systemClock, type TimerHandle, VirtualClock } from './clock.js';
// Several replicas: the lease and control-bus contracts with their in-process
// implementations (PostgreSQL ones are in `switchboard/postgres`).
// Imported module by module: the cluster's index also holds the PostgreSQL
// implementations, and loading them would load the optional `pg` driver.
export { createMemoryChatLease } from './cluster/lease.js';
export { createMemoryControlBus } from './cluster/memory-bus.js';
export { claimOrphanedTurns } from './cluster/orphans.js';
export type {
  ChatLease,
  ControlBus,
  ControlEnvelope,
  ControlMessage,
  Lease,
  LeaseOptions,
} from './cluster/types.js';
export {
  describeError,
  type ErrorCode,
  isErrorCode,
  RateLimitError,
  type RateLimitErrorOptions,
  type RateLimitScope,
  SwitchboardError,
  type SwitchboardErrorOptions,
} from './errors.js';
export { createLogger, type Logger, type LoggerOptions, scrubSecrets, silentLogger } from './logger.js';
export {
  loadMcpConfig,
  type McpConfig,
  type McpServerConfig,
  type McpServers,
  type McpServersOptions,
  startMcpServers,
} from './mcp/index.js';
// The model provider.
// Prompt caching and prices: the cache setting, the list-price table and what a usage ledger costs.
export {
  AnthropicProvider,
  type AnthropicProviderOptions,
  CACHE_SETTINGS,
  type CacheLifetime,
  type CacheSetting,
  DEFAULT_MODEL,
  DEFAULT_PRICES,
  formatUsd,
  type LedgerCost,
  ledgerCost,
  type ModelPrice,
  type PriceTable,
  parsePriceOverrides,
  priceFor,
  priceTable,
} from './provider/index.js';
export type {
  Provider,
  ProviderEvent,
  ProviderMessage,
  ProviderRequest,
  ToolDefinition,
} from './provider/types.js';
// The tools' sandbox.
export {
  requireSandbox,
  Sandbox,
  type SandboxLimits,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxSettings,
  type SandboxStatus,
  SandboxTurn,
} from './sandbox/index.js';
// The session engine.
// Schedules.
export { createFileScheduleStore, type FileScheduleStoreOptions } from './schedule/file-store.js';
export { LocalTrigger } from './schedule/local-trigger.js';
export type {
  BusyMode,
  ChatSettings,
  DueHandler,
  Schedule,
  ScheduleStore,
  ScheduleTrigger,
} from './schedule/types.js';
export type { ScheduleSpec } from './schedule/when.js';
export * from './session/index.js';
// Stores.
export {
  type BotStateStoreOptions,
  createBotStateStore,
  createMemoryBotStateStore,
  createMemorySessionStore,
  createProjectSessionStore,
  createUserSessionStore,
  type MemorySessionStore,
  newSessionId,
  type SessionStoreOptions,
  validateSessionId,
  validateSessionName,
} from './store/index.js';
export * from './store/types.js';
// Tools.
export {
  type BuiltinToolsOptions,
  createBuiltinTools,
  decidePermission,
  scrubbedEnv,
} from './tools/index.js';
export type { Tool, ToolContext, ToolResult, ToolSource } from './tools/types.js';
// Speech to text for voice notes.
export {
  type AudioInput,
  createTranscriber,
  type Transcriber,
  type TranscriberOptions,
  type Transcript,
} from './transcribe/index.js';
