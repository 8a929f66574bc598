/**
 * The data shapes the session engine shares with the provider, the tools, the
 * store and the bot core. Kept free of behaviour so every layer can import it.
 */

/** How freely the agent may use tools. See design.md for the table. */
export type PermissionMode = 'plan' | 'default' | 'acceptEdits' | 'bypassPermissions';

/** Every permission mode, in the order the help text lists them. */
export const PERMISSION_MODES: readonly PermissionMode[] = [
  'plan',
  'default',
  'acceptEdits',
  'bypassPermissions',
];

/** What a tool does to the world: read it, change files, or run programs. */
export type ToolClass = 'inspect' | 'modify' | 'execute';

/** An answer to a `permission_request`: allow once, allow for this session (scoped), deny. */
export type PermissionAnswer = boolean | 'allow' | 'allow-session' | 'deny';

/** Whether the session may read the project's AGENTS.md / CLAUDE.md, settings and memory. */
export type ProjectAccess = 'trusted' | 'restricted';

/** The context window's state, as the seed's `IContextWindowState`. */
export interface ContextWindowState {
  maxTokens: number;
  usedTokens: number;
  usedPercentage: number;
  remainingPercentage: number;
}

/** Token usage reported by the provider for one request. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
}

/** One block of a message's content; close to the Messages API, without its ids. */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: string; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; content: string; isError?: boolean };

/**
 * One entry of the conversation. `state: 'interrupted'` marks a reply cut off
 * by abort(); `kind` marks messages the session itself wrote.
 */
export interface HistoryMessage {
  id: string;
  role: 'user' | 'assistant';
  content: ContentBlock[];
  createdAt: string;
  state?: 'complete' | 'interrupted';
  /** `summary`: the `[Context Summary]` after compaction; `notice`: a guard or cut-off notice. */
  kind?: 'summary' | 'notice';
  /** Display name of the person who wrote a user message, in shared chats. */
  author?: string;
}

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

/** Payload of the `permission_request` event. */
export interface PermissionRequest {
  id: string;
  toolName: string;
  toolArgs: Record<string, unknown>;
  /** One-line human summary of what the tool will do (`Bash: npm test`). */
  summary: string;
  toolClass: ToolClass;
}

/** Payload of `tool_start`. */
export interface ToolStartEvent {
  id: string;
  name: string;
  summary: string;
}

/** Payload of `tool_end`. */
export interface ToolEndEvent {
  id: string;
  name: string;
  summary: string;
  status: 'ok' | 'error' | 'denied' | 'interrupted';
}

/** Every event an `InteractiveSession` emits, with its payload. */
export interface SessionEvents {
  text_delta: [delta: string];
  tool_start: [event: ToolStartEvent];
  tool_end: [event: ToolEndEvent];
  complete: [result: TurnResult];
  interrupted: [result: TurnResult];
  context_update: [state: ContextWindowState];
  permission_request: [request: PermissionRequest];
  compact: [event: CompactEvent];
  error: [error: Error];
  /** The session's record could not be saved (the turn itself went on). */
  save_error: [error: Error];
  /** A message the session added on its own (0.95 guard, cut-off notice). */
  notice: [text: string];
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
