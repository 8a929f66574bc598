/**
 * The shared vocabulary: the data shapes every layer speaks — messages and
 * their content blocks, token usage, the context window's state, tool
 * classes, permission modes and answers, project access and tool
 * definitions. It sits on the ground floor beside `clock`, `errors` and
 * `logger`: it imports nothing of ours, so the provider, the tools, the
 * stores and the configuration can all import it without reaching up into
 * the session engine that uses them.
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

/** An answer to a permission request: allow once, allow for this session (scoped), deny. */
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
  /** Input tokens billed at the full price (after the last cache hit or write). */
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
  /** The cache writes split by lifetime, when the provider reports it (the prices differ). */
  cacheCreation?: { ephemeral5mInputTokens: number; ephemeral1hInputTokens: number };
}

/** Tokens of one kind of work added up: what a session or a day consumed on one model. */
export interface UsageTotals {
  /** Model requests counted. */
  calls: number;
  inputTokens: number;
  /** Written to the 5-minute cache (1.25 x input on most models). */
  cacheWrite5mTokens: number;
  /** Written to the 1-hour cache (2 x input). */
  cacheWrite1hTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
}

/**
 * What a session has consumed, kept with its record: per UTC day
 * (`YYYY-MM-DD`), per model. Requests whose prompt exceeded a model's
 * long-prompt threshold are added up apart (`long`), since some models bill
 * them at another rate.
 */
export interface UsageLedger {
  days: Record<string, Record<string, ModelUsage>>;
}

/** One model's totals in a ledger, with the part of them sent in long prompts. */
export type ModelUsage = UsageTotals & { long?: UsageTotals };

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

/** A tool as the model sees it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the tool's input object. */
  inputSchema: Record<string, unknown>;
}
