/**
 * The validated configuration of the ready bot, as `loadConfig` returns it.
 */
import type { McpConfig } from '../src/mcp/config.js';
import type { CacheSetting } from '../src/provider/cache.js';
import type { PriceTable } from '../src/provider/pricing.js';
import type { WebSettings } from '../src/provider/web-tools.js';
import type { SandboxMode, SandboxNetwork } from '../src/sandbox/settings.js';
import type { BusyMode } from '../src/schedule/types.js';
import type {
  Effort,
  MentionPolicy,
  PermissionMode,
  ProjectAccess,
  ThinkingSetting,
} from '../src/vocabulary.js';

/** PostgreSQL settings, present when SWITCHBOARD_DATABASE_URL is set: several replicas share it. */
export interface DatabaseConfig {
  url: string;
  /** Schema holding the tables; default `public`. */
  schema?: string;
}

/** The model settings (SWITCHBOARD_EFFORT, SWITCHBOARD_THINKING, SWITCHBOARD_CONTEXT_WINDOW, SWITCHBOARD_MAX_OUTPUT_TOKENS). */
export interface ModelSettings {
  /** Unset: the model's default effort. */
  effort?: Effort;
  thinking: ThinkingSetting;
  /** Retry a refused request on the recommended fallback model (SWITCHBOARD_FALLBACK, default on). */
  fallback: boolean;
  /** Overrides the registry's window (for a model it does not know). */
  contextWindow?: number;
  /** Overrides the registry's output limit. */
  maxOutputTokens?: number;
}

/** The validated configuration of the ready bot. */
export interface Config {
  anthropic: { apiKey: string; baseURL?: string };
  model: string;
  /** How requests think and what a model the registry does not know looks like. */
  modelSettings: ModelSettings;
  /** Absolute path of the data directory (sessions, chat map). */
  dataDir: string;
  /** Absolute path of the tools' working directory. */
  workspace: string;
  workspacePerChat: boolean;
  /** Largest file downloaded from a chat into the workspace, in bytes (`SWITCHBOARD_MAX_FILE_MB`). */
  maxFileBytes: number;
  permissionMode: PermissionMode;
  projectAccess: ProjectAccess;
  /** The tools' sandbox: `SWITCHBOARD_SANDBOX` and `SWITCHBOARD_SANDBOX_NETWORK`. */
  sandbox: { mode: SandboxMode; network: SandboxNetwork };
  allowedUsers: string[];
  admins: string[];
  linkedUsers: Record<string, string[]>;
  /** Who may answer approval prompts besides the requester and admins (`SWITCHBOARD_APPROVERS`). */
  approvers: string[];
  /** Whether a requester may approve their own execute-class calls (`SWITCHBOARD_SELF_APPROVAL`). */
  selfApproval: boolean;
  /** Spending caps in US dollars; an absent one is no cap (`SWITCHBOARD_BUDGET_*`). */
  budgets: { userDay?: number; chatDay?: number; month?: number };
  approvalTimeoutMs: number;
  idleReleaseMs: number;
  /** A model stream silent this long is cancelled with a message to the chat. */
  streamIdleTimeoutMs: number;
  /** Schedules and per-chat defaults: `SWITCHBOARD_TIMEZONE`, `_SCHEDULE_GRACE`, `_UNATTENDED_APPROVALS`, `_BUSY`. */
  schedules: { timezone: string; graceMs: number; unattendedApprovals: 'ask' | 'deny'; busy: BusyMode };
  logLevel: string;
  /** `auto`: readable lines on a terminal, JSON otherwise. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Absolute path of a log file; in the terminal chat, logs go there instead of stderr. */
  logFile?: string;
  /** Port of a server of its own for /healthz, /readyz and /metrics (and the MCP sign-in callback). */
  httpPort?: number;
  /** The bot's public base URL; MCP sign-in redirects come back to it. */
  publicUrl?: string;
  /** Key (base64 or hex, 32 bytes) that encrypts MCP sign-in tokens at rest. */
  secretKey?: string;
  /**
   * The platforms that run, by id (`telegram`), each with the settings its
   * module read from the environment (`adapters/<id>/platform.ts`); the
   * fallback platform (the terminal chat) when no other is configured, or
   * when asked for with `--<id>` (`--console`).
   */
  platforms: Record<string, unknown>;
  /** Sessions and state in PostgreSQL instead of lowdb files (several replicas). */
  database?: DatabaseConfig;
  /** How long a chat's lease outlives a replica that died while answering in it. */
  leaseTtlMs: number;
  /** Prompt caching: `auto` (lifetime per chat), `5m`, `1h` or `off`. */
  cache: CacheSetting;
  /** Mentions the model's text may make on every platform (`SWITCHBOARD_ALLOW_MENTIONS`). */
  mentions: MentionPolicy;
  /** List prices by model id: the built-in table with `SWITCHBOARD_PRICES` laid over it. */
  prices: PriceTable;
  /** Every configured secret value, for scrubbing logs and tool environments. */
  secrets: string[];
  /** MCP servers whose tools the agent gets (SWITCHBOARD_MCP_CONFIG), validated and expanded. */
  mcp?: McpConfig;
  /** Voice notes transcribed (SWITCHBOARD_TRANSCRIBE_*); absent when no service is set. */
  transcription?: TranscriptionConfig;
  /** Web search and fetch, run by the API (SWITCHBOARD_WEB_*). */
  web: WebSettings;
}

/** An OpenAI-compatible transcription endpoint and how voice notes are taken. */
export interface TranscriptionConfig {
  /** The endpoint's full URL (`SWITCHBOARD_TRANSCRIBE_URL`). */
  url: string;
  /** `SWITCHBOARD_TRANSCRIBE_MODEL`. */
  model: string;
  /** Sent as a Bearer token (`SWITCHBOARD_TRANSCRIBE_KEY`). */
  apiKey?: string;
  /** Longest voice note transcribed (`SWITCHBOARD_MAX_AUDIO_SECONDS`, default 600). */
  maxSeconds: number;
  /** Keep recordings in the workspace's uploads/ (`SWITCHBOARD_KEEP_AUDIO`, default true). */
  keepAudio: boolean;
  /** US dollars per minute of audio, for /cost (`SWITCHBOARD_TRANSCRIBE_PRICE`). */
  pricePerMinute?: number;
}

/** A problem with one variable, found by a check: `path[0]` names it. */
export interface ConfigProblem {
  path: PropertyKey[];
  message: string;
}
