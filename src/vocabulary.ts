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
  /** Web searches the API ran for the request (`usage.server_tool_use.web_search_requests`), billed apart. */
  webSearchRequests?: number;
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
  /** Web searches the API ran (priced per 1,000); absent when none. */
  webSearches?: number;
}

/**
 * What a session has consumed, kept with its record: per UTC day
 * (`YYYY-MM-DD`), per model. Requests whose prompt exceeded a model's
 * long-prompt threshold are added up apart (`long`), since some models bill
 * them at another rate.
 */
export interface UsageLedger {
  days: Record<string, Record<string, ModelUsage>>;
  /** Voice notes transcribed: per UTC day, per transcription model. Absent while there were none. */
  transcription?: Record<string, Record<string, TranscriptionTotals>>;
}

/** Voice notes one transcription model heard: how many, and their length where it was known. */
export interface TranscriptionTotals {
  notes: number;
  seconds: number;
}

/** One model's totals in a ledger, with the part of them sent in long prompts. */
export type ModelUsage = UsageTotals & { long?: UsageTotals };

/**
 * One block of a message's content; close to the Messages API, without its ids.
 * Thinking blocks are kept exactly as the model sent them (text and signature
 * byte for byte): the API rejects a tool loop whose thinking was altered.
 */
export type ContentBlock =
  /** `citations`: the API's citation objects for this text (web search, documents), kept as received. */
  | { type: 'text'; text: string; citations?: ApiBlock[] }
  | { type: 'image'; mediaType: string; data: string }
  /**
   * A PDF the model reads page by page (text and a picture of each page);
   * `data` is base64, `title` the file's name as sent (text, never a path).
   */
  | { type: 'document'; mediaType: 'application/pdf'; data: string; title?: string }
  /** `caller`: who called the tool (the API's `tool_use.caller`), kept as received. */
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; caller?: ApiBlock }
  /** `images`: pictures the tool returned, sent inside the tool_result after its text. */
  | { type: 'tool_result'; toolUseId: string; content: string; images?: ToolResultImage[]; isError?: boolean }
  /** The model's thinking; `thinking` may be empty (display `omitted`): the signature carries it. */
  | { type: 'thinking'; thinking: string; signature: string }
  /** Thinking the API encrypted; `data` is opaque and goes back unchanged. */
  | { type: 'redacted_thinking'; data: string }
  /**
   * Any other block, in the Messages API's own shape, exactly as the API sent
   * it (server tool calls and their results, MCP blocks, `fallback`,
   * `compaction`, types newer than this version) or as a mid-conversation
   * system message takes it (`tool_addition`, `tool_removal`). It goes back
   * unchanged, in its place.
   */
  | { type: 'api'; block: ApiBlock };

/** A content block (or part of one) in the Messages API's own JSON shape. */
export type ApiBlock = { type: string } & Record<string, unknown>;

/**
 * What the model was given to work with in a conversation: the `system`
 * prompt and `tools` it was built with (frozen for the conversation: the
 * API's prefix checks bind every thinking block to them), and the
 * permission mode it was told about.
 */
export interface ConversationFrame {
  system: string;
  tools: ToolDefinition[];
  mode: PermissionMode;
  /**
   * Whether the chat lets the model use its web tools (`/web on|off`);
   * absent: on. The tools stay declared either way; a change is said in a
   * message.
   */
  web?: 'on' | 'off';
}

/** An image a tool returned (base64), as the Messages API takes it inside a tool_result. */
export interface ToolResultImage {
  mediaType: string;
  data: string;
}

/** Why a model reply ended, as the Messages API names it. */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

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
  /**
   * `summary`: the `[Context Summary]` after compaction; `notice`: a guard or
   * cut-off notice (never sent); `context`: what changed since the frame
   * (instructions, tools, mode), sent as a system message; `continue`: the
   * request to go on after a reply cut at the output limit.
   */
  kind?: 'summary' | 'notice' | 'context' | 'continue';
  /** On a `context` message: the system, tools and mode the model knows from here on. */
  frame?: ConversationFrame;
  /** Display name of the person who wrote a user message, in shared chats. */
  author?: string;
  /**
   * The model that wrote an assistant message. Thinking blocks are bound to
   * it: a session continued under another model does not send them back.
   */
  model?: string;
  /** Why the model stopped writing this assistant message (set when known). */
  stopReason?: StopReason;
  /**
   * Kept in the history but never sent to the model again: `refusal` marks an
   * exchange the model declined, so the next turn is not refused for it.
   */
  withheld?: 'refusal';
}

/** A tool as the model sees it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the tool's input object. */
  inputSchema: Record<string, unknown>;
  /**
   * A tool the API runs itself (web search, web fetch): the definition as
   * the API takes it (`type`, `name`, its options), sent exactly so;
   * `description` and `inputSchema` are for our own listings only.
   */
  server?: Record<string, unknown>;
}

/** A server of tools (an MCP server) as `/status` and `/tools` show it. */
export interface ToolServerStatus {
  name: string;
  /** `down`: failed to start or dropped, and being retried; its tools are left out meanwhile. */
  state: 'connecting' | 'connected' | 'down';
  /** The tools offered from it now, by the name the model sees. */
  tools: string[];
  /** Tools it lists that are not offered (the server's own names), each with why. */
  leftOut?: Array<{ name: string; reason: string }>;
  /** Why it is down (its last error), when it is. */
  problem?: string;
}

/** A prompt an MCP server offers, for `/mcp prompts` and `/mcp run`. */
export interface ToolPrompt {
  server: string;
  name: string;
  description?: string;
  arguments: Array<{ name: string; description?: string; required: boolean }>;
}

/** `output_config.effort` values (Effort page of platform.claude.com/docs), lowest first. */
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** How much effort the model puts into a reply (SWITCHBOARD_EFFORT). */
export type Effort = (typeof EFFORTS)[number];

/**
 * How the model should think (SWITCHBOARD_THINKING). `adaptive` leaves the
 * model's default (adaptive thinking on the current models); `between_tools`
 * turns off the thinking before the first answer where the model accepts it
 * (Sonnet 5.5, Haiku 5.5): the lowest setting that still thinks between tool calls.
 */
export const THINKING_SETTINGS = ['adaptive', 'between_tools'] as const;

/** One of {@link THINKING_SETTINGS}. */
export type ThinkingSetting = (typeof THINKING_SETTINGS)[number];

/**
 * Which mentions the model's text may make. `none` (the default): every
 * mention, special token and user link reaches the chat as text. `users`:
 * mentions of one person (Slack `<@U…>`, Discord `<@…>`, Telegram
 * `tg://user?id=…` links) notify them. `all`: also the ones that notify many
 * (Slack `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^…>`; Discord
 * `@everyone`, `@here`, role mentions).
 */
export type MentionPolicy = 'none' | 'users' | 'all';

/** Every mention policy, from the strictest (SWITCHBOARD_ALLOW_MENTIONS). */
export const MENTION_POLICIES: readonly MentionPolicy[] = ['none', 'users', 'all'];

/**
 * Why an attachment the person sent carries no content: larger than the
 * limit (`limitBytes` says which), or the download failed (a stall, an
 * error status, a network failure). The bot core answers with a line naming
 * the file and runs nothing for it.
 */
export type AttachmentProblem = 'too-large' | 'download-failed';

/**
 * Something attached to an inbound message. Adapters download images and
 * documents (bounded by the bot's file limit, through `boundedDownload`) and
 * hand their content in `bytes`; audio comes with a `download` the core
 * calls when it will transcribe it; video, stickers and the like are
 * described by kind only and answered with one line. Every field but `kind`
 * comes from the platform and is untrusted: `name` is shown to the model as
 * text and never used as a path, `mediaType` is a hint the core checks
 * against the content.
 */
export interface Attachment {
  /**
   * What the platform says it is (adapters always say). Absent on a file
   * handed to a session directly: its content decides, as for a document.
   */
  kind?: 'image' | 'document' | 'audio' | 'video' | 'sticker' | 'other';
  /** The platform's media type, when it gives one. */
  mediaType?: string;
  /** The file's name as the sender gave it (untrusted text, never a path). */
  name?: string;
  /** Size in bytes as the platform declared it, when it did. */
  size?: number;
  /** The downloaded content (images and documents). */
  bytes?: Uint8Array;
  /**
   * @deprecated The content base64-encoded, as adapters passed images before
   * `bytes`; the core still reads it when `bytes` is absent.
   */
  data?: string;
  /** Set when an image or document has no content: why. */
  problem?: AttachmentProblem;
  /** With `problem: 'too-large'`: the limit it passed, in bytes. */
  limitBytes?: number;
  /** Audio: its length in seconds, as the platform declared it (a voice note's duration). */
  durationSeconds?: number;
  /**
   * Audio not downloaded yet: fetches it within the bot's file limit and
   * resolves to this attachment with `bytes`, or with the `problem` that
   * kept it (never rejects). The core calls it only when it will transcribe
   * the recording and its declared length is within the limit, so audio
   * nobody listens to is never fetched.
   */
  download?: () => Promise<Attachment>;
}

/**
 * A workspace file the agent sends to the chat (the SendFile tool). The
 * session reads it through the sandbox; the bot core delivers it.
 */
export interface OutboundFile {
  /** The name the chat shows: the file's base name in the workspace, never a path. */
  name: string;
  /** Where the file is on this machine (the workspace path): a terminal chat prints it. */
  path: string;
  bytes: Uint8Array;
  /** Read from the file's content (image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain; charset=utf-8), else application/octet-stream. */
  mediaType: string;
  /** A line shown with the file: plain text, never parsed as markup (the core fits it to the chat's caption limit). */
  caption?: string;
}

/** How a delivery ended: sent (with how it was shown), or why not, in words for the model. */
export type FileDelivery = { ok: true; shownAs: 'image' | 'document' | 'path' } | { error: string };

/**
 * What the host of a turn offers for scheduling in its chat (the Schedule
 * tool), as the person the turn answers. A session run without a chat has none.
 */
export interface ChatSchedules {
  /** Makes a schedule (`when` as in /schedule); resolves to the line confirming it, rejects with why not. */
  create(when: string, prompt: string): Promise<string>;
}

/**
 * What the host of a turn offers for sending files into its chat. The bot
 * core passes one per turn; a session run without a chat has none.
 */
export interface FileSender {
  /** Largest file the chat takes, in bytes; undefined when it takes no files. */
  readonly maxBytes: number | undefined;
  /** Delivers the file after the reply text written before it. */
  send(file: OutboundFile): Promise<FileDelivery>;
}
