/** The session engine: InteractiveSession, context tracking, the model registry, and the session types. */

export { DEFAULT_CONTEXT_WINDOW, getModelInfo, type ModelInfo } from '../provider/models.js';
// What a session's usage costs, for the bot's /cost, budgets and reply footers: the bot reaches
// prices through the session layer, never the provider directly.
export { DEFAULT_PRICES, formatUsd, ledgerCost, type PriceTable } from '../provider/pricing.js';
// The operator's words for a sandbox that is not in force, for /status.
export { sandboxWarning } from '../sandbox/index.js';
// The words of a question a tool asks while it runs, for the bot's question prompts.
export type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationQuestion,
  ElicitationValue,
} from '../tools/types.js';
export { SUMMARY_HEADER, summarizationPrompt } from './compaction.js';
export { ContextWindowTracker, contextState, estimateTokens, usageTotal } from './context-tracker.js';
export {
  createSessionFactory,
  type SessionFactory,
  type SessionFactoryOptions,
  type SessionRequest,
  type ToolsReport,
  workspaceFolderName,
} from './factory.js';
export { shownName, UPLOADS_DIR } from './file-names.js';
export { CUT_OFF_NOTICE, INTERRUPTED_TOOL_RESULT, type SubmitInput } from './history.js';
export { MAX_TEXT_FILE_CHARS } from './incoming-files.js';
export { InteractiveSession } from './interactive-session.js';
export { DEFAULT_QUEUE_LIMIT } from './job-queue.js';
export type { PausedAnswer, PausedTurn } from './paused-turn.js';
export { DEFAULT_PERMISSION_TIMEOUT_MS } from './permissions.js';
export { extractCompactInstructions, loadProjectContext, type ProjectContext } from './project-context.js';
export { SessionLoadError, type SessionLoadStatus } from './resume.js';
export {
  DEFAULT_AUTO_COMPACT_THRESHOLD,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type InteractiveSessionOptions,
  type SessionHandle,
  type SubmitOptions,
} from './session-options.js';
export { CONTEXT_GUARD_FRACTION, DEFAULT_MAX_ITERATIONS } from './turn.js';
export * from './types.js';
export { cacheHitRate, ledgerTotals, mergeLedger } from './usage-ledger.js';
