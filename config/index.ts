/**
 * Loads and validates the configuration. A bad value stops start-up with a
 * message that names the variable and says what is expected.
 *
 * The parts: `schema.ts` (the variables, the platforms' from their modules,
 * built of `fields.ts`), `user-keys.ts` (people as `platform:id`),
 * `problems.ts` (cross-checks and the error), `platform-settings.ts` (which
 * platforms run, their secrets), `types.ts` (the {@link Config} this returns).
 *
 * @example
 * const config = loadConfig({ env: process.env, argv: process.argv.slice(2) });
 */
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { loadMcpConfig } from '../src/mcp/config.js';
import { checkModelSettings } from '../src/provider/model-settings.js';
import { parsePriceOverrides, priceTable } from '../src/provider/pricing.js';
import { platformSecrets, platformSettings } from './platform-settings.js';
import { configError, crossChecks } from './problems.js';
import { envSchema, type ParsedEnv } from './schema.js';
import type { Config } from './types.js';

export type { Config, DatabaseConfig, ModelSettings, TranscriptionConfig } from './types.js';

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
  // The platforms' values are typed by their modules, which read them.
  const e = parsed.data as ParsedEnv;
  const { platforms, problems } = platformSettings(e, argv);
  problems.unshift(...crossChecks(e));
  if (problems.length) throw configError(problems, env);
  return toConfig(e, platforms, cwd, env);
}

function toConfig(
  e: ParsedEnv,
  platforms: Record<string, unknown>,
  cwd: string,
  env: Record<string, string | undefined>,
): Config {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  const secrets = [
    e.ANTHROPIC_API_KEY,
    ...platformSecrets(e),
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
    platforms,
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

export type { ParsedEnv };
/** zod issues, re-exported for tools that validate partial configs. */
export type ConfigIssue = z.core.$ZodIssue;
