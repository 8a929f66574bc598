/**
 * Loads and validates the configuration. A bad value stops start-up with a
 * message that names the variable and says what is expected.
 *
 * @example
 * const config = loadConfig({ env: process.env, argv: process.argv.slice(2) });
 */
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { SwitchboardError } from '../src/errors.js';
import { loadMcpConfig, type McpConfig } from '../src/mcp/config.js';
import type { CacheSetting } from '../src/provider/cache.js';
import { checkModelSettings } from '../src/provider/model-settings.js';
import { type PriceTable, parsePriceOverrides, priceTable } from '../src/provider/pricing.js';
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
import { envSchema, type ParsedEnv } from './schema.js';

/** Telegram settings, present when TELEGRAM_BOT_TOKEN is set. */
export interface TelegramConfig {
  token: string;
  apiRoot?: string;
  webhook?: { url: string; secret: string; port: number };
}

/** Slack settings, present when SLACK_BOT_TOKEN is set. */
export interface SlackConfig {
  botToken: string;
  appToken?: string;
  signingSecret?: string;
  port: number;
  apiUrl?: string;
  commandName: string;
}

/** Discord settings, present when DISCORD_BOT_TOKEN is set. */
export interface DiscordConfig {
  token: string;
  apiUrl?: string;
  guildId?: string;
}

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
  telegram?: TelegramConfig;
  slack?: SlackConfig;
  discord?: DiscordConfig;
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
  /** Run the terminal chat (no platform configured, or `--console`). */
  console: boolean;
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

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  env?: Record<string, string | undefined>;
  argv?: readonly string[];
  /** Relative paths are resolved against this; default `process.cwd()`. */
  cwd?: string;
}

/** Validates the environment; throws `CONFIG_INVALID` listing every problem. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const argv = options.argv ?? [];
  const cwd = options.cwd ?? process.cwd();
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw configError(parsed.error.issues, env);
  const e = parsed.data;
  const problems = crossChecks(e);
  if (problems.length) throw configError(problems, env);
  return toConfig(e, argv, cwd, env);
}

function crossChecks(e: ParsedEnv): Array<{ path: string[]; message: string }> {
  const out: Array<{ path: string[]; message: string }> = [];
  const need = (cond: boolean, variable: string, message: string) => {
    if (cond) out.push({ path: [variable], message });
  };
  need(
    !!e.SLACK_BOT_TOKEN && !e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET,
    'SLACK_APP_TOKEN',
    'is needed with SLACK_BOT_TOKEN: set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)',
  );
  need(
    !e.SLACK_BOT_TOKEN && (!!e.SLACK_APP_TOKEN || !!e.SLACK_SIGNING_SECRET),
    'SLACK_BOT_TOKEN',
    'is not set, but other SLACK_ variables are: set the xoxb- bot token too',
  );
  need(
    !!e.SWITCHBOARD_TRANSCRIBE_URL && !e.SWITCHBOARD_TRANSCRIBE_MODEL,
    'SWITCHBOARD_TRANSCRIBE_MODEL',
    'is needed with SWITCHBOARD_TRANSCRIBE_URL: the model to ask for, e.g. gpt-4o-mini-transcribe or whisper-1',
  );
  need(
    !e.SWITCHBOARD_TRANSCRIBE_URL && (!!e.SWITCHBOARD_TRANSCRIBE_MODEL || !!e.SWITCHBOARD_TRANSCRIBE_KEY),
    'SWITCHBOARD_TRANSCRIBE_URL',
    'is not set, but other SWITCHBOARD_TRANSCRIBE_ variables are: set the endpoint, e.g. https://api.openai.com/v1/audio/transcriptions',
  );
  need(
    !!e.TELEGRAM_WEBHOOK_URL && !e.TELEGRAM_WEBHOOK_SECRET,
    'TELEGRAM_WEBHOOK_SECRET',
    'is needed with TELEGRAM_WEBHOOK_URL so that only Telegram can post updates',
  );
  need(
    !e.TELEGRAM_BOT_TOKEN && !!e.TELEGRAM_WEBHOOK_URL,
    'TELEGRAM_BOT_TOKEN',
    'is not set, but TELEGRAM_WEBHOOK_URL is',
  );
  // Web search tool page: allowed_domains and blocked_domains cannot be used in the same request.
  need(
    e.SWITCHBOARD_WEB_ALLOWED_DOMAINS.length > 0 && e.SWITCHBOARD_WEB_BLOCKED_DOMAINS.length > 0,
    'SWITCHBOARD_WEB_BLOCKED_DOMAINS',
    'cannot be set together with SWITCHBOARD_WEB_ALLOWED_DOMAINS (the API takes one list or the other): keep one',
  );
  need(
    !e.DISCORD_BOT_TOKEN && !!e.DISCORD_GUILD_ID,
    'DISCORD_BOT_TOKEN',
    'is not set, but DISCORD_GUILD_ID is',
  );
  return out;
}

function toConfig(
  e: ParsedEnv,
  argv: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Config {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const telegram: TelegramConfig | undefined = e.TELEGRAM_BOT_TOKEN
    ? {
        token: e.TELEGRAM_BOT_TOKEN,
        ...(e.TELEGRAM_API_ROOT ? { apiRoot: e.TELEGRAM_API_ROOT.replace(/\/+$/, '') } : {}),
        ...(e.TELEGRAM_WEBHOOK_URL && e.TELEGRAM_WEBHOOK_SECRET
          ? {
              webhook: {
                url: e.TELEGRAM_WEBHOOK_URL,
                secret: e.TELEGRAM_WEBHOOK_SECRET,
                port: e.TELEGRAM_WEBHOOK_PORT,
              },
            }
          : {}),
      }
    : undefined;
  const slack: SlackConfig | undefined = e.SLACK_BOT_TOKEN
    ? {
        botToken: e.SLACK_BOT_TOKEN,
        port: e.SLACK_PORT,
        commandName: e.SLACK_COMMAND,
        ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
        ...(e.SLACK_SIGNING_SECRET ? { signingSecret: e.SLACK_SIGNING_SECRET } : {}),
        ...(e.SLACK_API_URL ? { apiUrl: e.SLACK_API_URL } : {}),
      }
    : undefined;
  const discord: DiscordConfig | undefined = e.DISCORD_BOT_TOKEN
    ? {
        token: e.DISCORD_BOT_TOKEN,
        ...(e.DISCORD_API_URL ? { apiUrl: e.DISCORD_API_URL.replace(/\/+$/, '') } : {}),
        ...(e.DISCORD_GUILD_ID ? { guildId: e.DISCORD_GUILD_ID } : {}),
      }
    : undefined;
  const secrets = [
    e.ANTHROPIC_API_KEY,
    e.TELEGRAM_BOT_TOKEN,
    e.TELEGRAM_WEBHOOK_SECRET,
    e.SLACK_BOT_TOKEN,
    e.SLACK_APP_TOKEN,
    e.SLACK_SIGNING_SECRET,
    e.DISCORD_BOT_TOKEN,
    e.SWITCHBOARD_DATABASE_URL,
    e.SWITCHBOARD_SECRET_KEY,
    databasePassword(e.SWITCHBOARD_DATABASE_URL),
    e.SWITCHBOARD_TRANSCRIBE_KEY,
  ].filter((s): s is string => !!s);
  // Effort levels and thinking modes differ per model: one the model refuses stops start-up (exit 2).
  checkModelSettings(e.SWITCHBOARD_MODEL, {
    thinking: e.SWITCHBOARD_THINKING,
    ...(e.SWITCHBOARD_EFFORT === undefined ? {} : { effort: e.SWITCHBOARD_EFFORT }),
  });
  // Read here so that a bad file stops start-up like any other bad setting (exit 2).
  const mcp = e.SWITCHBOARD_MCP_CONFIG
    ? {
        ...loadMcpConfig(abs(e.SWITCHBOARD_MCP_CONFIG), env, secrets),
        callTimeoutMs: e.SWITCHBOARD_MCP_TIMEOUT,
      }
    : undefined;
  return {
    anthropic: {
      apiKey: e.ANTHROPIC_API_KEY,
      ...(e.ANTHROPIC_BASE_URL ? { baseURL: e.ANTHROPIC_BASE_URL } : {}),
    },
    model: e.SWITCHBOARD_MODEL,
    modelSettings: {
      thinking: e.SWITCHBOARD_THINKING,
      fallback: e.SWITCHBOARD_FALLBACK,
      ...(e.SWITCHBOARD_EFFORT === undefined ? {} : { effort: e.SWITCHBOARD_EFFORT }),
      ...(e.SWITCHBOARD_CONTEXT_WINDOW === undefined ? {} : { contextWindow: e.SWITCHBOARD_CONTEXT_WINDOW }),
      ...(e.SWITCHBOARD_MAX_OUTPUT_TOKENS === undefined
        ? {}
        : { maxOutputTokens: e.SWITCHBOARD_MAX_OUTPUT_TOKENS }),
    },
    dataDir: abs(e.SWITCHBOARD_DATA_DIR),
    workspace: abs(e.SWITCHBOARD_WORKSPACE),
    workspacePerChat: e.SWITCHBOARD_WORKSPACE_PER_CHAT,
    maxFileBytes: e.SWITCHBOARD_MAX_FILE_MB,
    permissionMode: e.SWITCHBOARD_PERMISSION_MODE,
    projectAccess: e.SWITCHBOARD_PROJECT_ACCESS,
    sandbox: { mode: e.SWITCHBOARD_SANDBOX, network: e.SWITCHBOARD_SANDBOX_NETWORK },
    allowedUsers: e.SWITCHBOARD_ALLOWED_USERS,
    admins: e.SWITCHBOARD_ADMINS,
    linkedUsers: e.SWITCHBOARD_LINKED_USERS,
    approvers: e.SWITCHBOARD_APPROVERS,
    selfApproval: e.SWITCHBOARD_SELF_APPROVAL,
    budgets: {
      ...(e.SWITCHBOARD_BUDGET_USER_DAY === undefined ? {} : { userDay: e.SWITCHBOARD_BUDGET_USER_DAY }),
      ...(e.SWITCHBOARD_BUDGET_CHAT_DAY === undefined ? {} : { chatDay: e.SWITCHBOARD_BUDGET_CHAT_DAY }),
      ...(e.SWITCHBOARD_BUDGET_MONTH === undefined ? {} : { month: e.SWITCHBOARD_BUDGET_MONTH }),
    },
    approvalTimeoutMs: e.SWITCHBOARD_APPROVAL_TIMEOUT,
    idleReleaseMs: e.SWITCHBOARD_IDLE_RELEASE,
    streamIdleTimeoutMs: e.SWITCHBOARD_STREAM_TIMEOUT,
    schedules: {
      timezone: e.SWITCHBOARD_TIMEZONE,
      graceMs: e.SWITCHBOARD_SCHEDULE_GRACE,
      unattendedApprovals: e.SWITCHBOARD_UNATTENDED_APPROVALS,
      busy: e.SWITCHBOARD_BUSY,
    },
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    logFormat: e.SWITCHBOARD_LOG_FORMAT,
    ...(e.SWITCHBOARD_LOG_FILE ? { logFile: abs(e.SWITCHBOARD_LOG_FILE) } : {}),
    ...(e.SWITCHBOARD_HTTP_PORT !== undefined ? { httpPort: e.SWITCHBOARD_HTTP_PORT } : {}),
    ...(e.SWITCHBOARD_PUBLIC_URL ? { publicUrl: e.SWITCHBOARD_PUBLIC_URL } : {}),
    ...(e.SWITCHBOARD_SECRET_KEY ? { secretKey: e.SWITCHBOARD_SECRET_KEY.trim() } : {}),
    ...(telegram ? { telegram } : {}),
    ...(slack ? { slack } : {}),
    ...(discord ? { discord } : {}),
    ...(e.SWITCHBOARD_DATABASE_URL
      ? {
          database: {
            url: e.SWITCHBOARD_DATABASE_URL,
            ...(e.SWITCHBOARD_DATABASE_SCHEMA ? { schema: e.SWITCHBOARD_DATABASE_SCHEMA } : {}),
          },
        }
      : {}),
    leaseTtlMs: e.SWITCHBOARD_LEASE_TTL,
    cache: e.SWITCHBOARD_CACHE,
    mentions: e.SWITCHBOARD_ALLOW_MENTIONS,
    prices: priceTable(e.SWITCHBOARD_PRICES ? parsePriceOverrides(e.SWITCHBOARD_PRICES) : {}),
    console: argv.includes('--console') || (!telegram && !slack && !discord),
    secrets: mcp ? [...secrets, ...mcp.secrets] : secrets,
    ...(mcp ? { mcp } : {}),
    ...(e.SWITCHBOARD_TRANSCRIBE_URL && e.SWITCHBOARD_TRANSCRIBE_MODEL
      ? {
          transcription: {
            url: e.SWITCHBOARD_TRANSCRIBE_URL,
            model: e.SWITCHBOARD_TRANSCRIBE_MODEL,
            ...(e.SWITCHBOARD_TRANSCRIBE_KEY ? { apiKey: e.SWITCHBOARD_TRANSCRIBE_KEY } : {}),
            maxSeconds: e.SWITCHBOARD_MAX_AUDIO_SECONDS,
            keepAudio: e.SWITCHBOARD_KEEP_AUDIO,
            ...(e.SWITCHBOARD_TRANSCRIBE_PRICE === undefined
              ? {}
              : { pricePerMinute: e.SWITCHBOARD_TRANSCRIBE_PRICE }),
          },
        }
      : {}),
    web: {
      search: e.SWITCHBOARD_WEB_SEARCH,
      fetch: e.SWITCHBOARD_WEB_FETCH,
      maxUses: e.SWITCHBOARD_WEB_MAX_USES,
      ...(e.SWITCHBOARD_WEB_ALLOWED_DOMAINS.length > 0
        ? { allowedDomains: e.SWITCHBOARD_WEB_ALLOWED_DOMAINS }
        : {}),
      ...(e.SWITCHBOARD_WEB_BLOCKED_DOMAINS.length > 0
        ? { blockedDomains: e.SWITCHBOARD_WEB_BLOCKED_DOMAINS }
        : {}),
    },
  };
}

/** The password inside a database URL, scrubbed on its own too (drivers echo it in some errors). */
function databasePassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password.length >= 4 ? password : undefined;
  } catch {
    return undefined;
  }
}

const SECRET_NAME = /TOKEN|SECRET|KEY|DATABASE_URL/;

function configError(
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  env: Record<string, string | undefined>,
): SwitchboardError {
  const lines = issues.map((i) => {
    const variable = String(i.path[0] ?? 'config');
    const value = env[variable];
    // Echo what was given, so a typo is visible at once; never echo a secret.
    const got = value && !SECRET_NAME.test(variable) ? ` (got "${value.slice(0, 60)}")` : '';
    return `${variable} ${i.message}${got}`;
  });
  const variables = issues.map((i) => String(i.path[0] ?? 'config'));
  return new SwitchboardError('CONFIG_INVALID', `Invalid configuration:\n  ${lines.join('\n  ')}`, {
    detail: { variables },
  });
}

export type { ParsedEnv };
/** zod issues, re-exported for tools that validate partial configs. */
export type ConfigIssue = z.core.$ZodIssue;
