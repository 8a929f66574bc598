/**
 * The platform-neutral bot core: chats in, sessions behind them, replies
 * streamed back through the outbox.
 */
export { type AccessDecision, type AccessOptions, AccessPolicy, userKey } from './access.js';
export * from './adapter-contract.js';
export { createBot } from './bot.js';
export { type ButtonAction, type ButtonPayload, decodeButton, encodeButton } from './buttons.js';
export { COMMANDS, normalizeCommandName } from './commands.js';
export type {
  Bot,
  BotLimits,
  BotObserver,
  BotOptions,
  BotStats,
  BotStores,
  ClusterOptions,
  ScheduleOptions,
  TurnOutcome,
} from './options.js';
export * from './outbound-calls.js';
export { MAX_INPUT_CHARS } from './text.js';
export { DEFAULT_MAX_AUDIO_SECONDS, type VoiceOptions } from './voice.js';
