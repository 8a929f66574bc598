/**
 * The session engine's own data shapes: what a turn produces and the events
 * an `InteractiveSession` emits. The vocabulary it shares with the layers
 * below (messages, usage, tool classes, permission modes) is in
 * `src/vocabulary.ts` and re-exported here.
 */

import type { ElicitationAnswer, ElicitationQuestion } from '../tools/types.js';
import type { ContextWindowState, PermissionAnswer, TokenUsage, ToolClass } from '../vocabulary.js';

// The shared vocabulary lives on the ground floor; the session re-exports it
// so its public surface stays in one import.
export {
  type ApiBlock,
  type Attachment,
  type AttachmentProblem,
  type ChatSchedules,
  type ContentBlock,
  type ContextWindowState,
  type ConversationFrame,
  type FileDelivery,
  type FileSender,
  type HistoryMessage,
  type OutboundFile,
  PERMISSION_MODES,
  type PermissionAnswer,
  type PermissionMode,
  type ProjectAccess,
  type StopReason,
  type TokenUsage,
  type ToolClass,
  type ToolDefinition,
  type ToolResultImage,
  type ToolServerStatus,
  type UsageLedger,
  type UsageTotals,
} from '../vocabulary.js';

/** What a finished (or interrupted) turn produced. */
export interface TurnResult {
  response: string;
  contextState: ContextWindowState;
  usage: TokenUsage;
  state: 'complete' | 'interrupted';
}

/** Payload of the `compact` event. */
export interface CompactEvent {
  trigger: 'manual' | 'auto';
  before: ContextWindowState;
  after: ContextWindowState;
}

/** How a permission request ended. Everything but `allow` / `allow-session` denies. */
export type PermissionOutcome = 'allow' | 'allow-session' | 'deny' | 'timeout' | 'unanswered' | 'aborted';

/** What a tool call asks permission for (kept with a turn paused on it, so plain data only). */
export interface PermissionRequest {
  id: string;
  toolName: string;
  toolArgs: Record<string, unknown>;
  /** One-line human summary of what the tool will do (`Bash: npm test`). */
  summary: string;
  toolClass: ToolClass;
  /** What "allow for this session" would cover (`Bash:npm test`), as the session's grants list it. */
  scope?: string;
}

/**
 * Payload of the `permission_request` event: the request, when its wait ends,
 * and the one way to answer it. The session owns the wait: its one timer
 * ends it at `deadline` as a timeout, and a stopped turn ends it as aborted.
 * Whoever shows the request answers through `answer` and learns from
 * `settled` how the wait ended, whoever ended it.
 */
export interface PendingPermission extends PermissionRequest {
  /** When the wait ends unanswered (ms since the epoch, on the session's clock). */
  deadline: number;
  /** Answers the request; false when its wait is already over (answered, timed out, stopped). */
  answer: (answer: PermissionAnswer) => boolean;
  /** How the wait ended: a person's answer, the deadline, or the turn stopping. */
  settled: Promise<PermissionOutcome>;
}

/** Payload of `tool_start`. */
export interface ToolStartEvent {
  id: string;
  name: string;
  summary: string;
  /** A tool the API ran itself (web search, fetch): its summary carries its own mark. */
  server?: boolean;
}

/** Payload of `tool_progress`: how far a running tool has come, in its own words. */
export interface ToolProgressEvent {
  id: string;
  name: string;
  text: string;
}

/**
 * Payload of `elicitation_request`: a running tool asks the person a
 * question. `answer` settles it once; later calls return false.
 */
export interface ElicitationRequest {
  /** The tool call that asks. */
  id: string;
  toolName: string;
  question: ElicitationQuestion;
  answer: (answer: ElicitationAnswer) => boolean;
}

/** Payload of `tool_end`. */
export interface ToolEndEvent {
  id: string;
  name: string;
  summary: string;
  /** See {@link ToolStartEvent.server}. */
  server?: boolean;
  status: 'ok' | 'error' | 'denied' | 'interrupted';
}

/** Every event an `InteractiveSession` emits, with its payload. */
export interface SessionEvents {
  text_delta: [delta: string];
  tool_start: [event: ToolStartEvent];
  /** A running tool said how far it has come (an MCP server's progress notifications). */
  tool_progress: [event: ToolProgressEvent];
  tool_end: [event: ToolEndEvent];
  complete: [result: TurnResult];
  interrupted: [result: TurnResult];
  context_update: [state: ContextWindowState];
  permission_request: [request: PendingPermission];
  /** A running tool asks the person something (MCP elicitation); declined when nobody listens. */
  elicitation_request: [request: ElicitationRequest];
  compact: [event: CompactEvent];
  error: [error: Error];
  /** The session's record could not be saved (the turn itself went on). */
  save_error: [error: Error];
  /** A message the session added on its own (0.95 guard, cut-off notice). */
  notice: [text: string];
  /**
   * What the model says it is doing between tool calls (its visible
   * thinking, display `updates`), the note so far; for a status line.
   */
  progress_note: [note: string];
}

/** Hooks run around compaction (design.md: PreCompact awaited, PostCompact with the summary). */
export interface SessionHooks {
  PreCompact?: (info: { trigger: 'manual' | 'auto'; state: ContextWindowState }) => void | Promise<void>;
  PostCompact?: (info: {
    trigger: 'manual' | 'auto';
    summary: string;
    state: ContextWindowState;
  }) => void | Promise<void>;
}
