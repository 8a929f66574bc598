/**
 * The configuration schema: every environment variable switchboard reads,
 * validated with zod. Durations are given in seconds and turned into ms.
 * The platforms' variables come from their modules (adapters/platforms.ts).
 */
import { z } from 'zod';
import { PLATFORMS } from '../adapters/platforms.js';
import { CACHE_SETTINGS, type CacheSetting } from '../src/provider/cache.js';
import { parsePriceOverrides } from '../src/provider/pricing.js';
import {
  SANDBOX_MODES,
  SANDBOX_NETWORKS,
  type SandboxMode,
  type SandboxNetwork,
} from '../src/sandbox/settings.js';
import { BUSY_MODES, type BusyMode } from '../src/schedule/types.js';
import { isTimeZone } from '../src/schedule/when.js';
import {
  EFFORTS,
  MENTION_POLICIES,
  type MentionPolicy,
  PERMISSION_MODES,
  THINKING_SETTINGS,
} from '../src/vocabulary.js';
import { bool, boolDefaultTrue, onOff, optionalString, seconds, tokens, url } from './fields.js';
import { linkedUsers, userList } from './user-keys.js';

/** A number of US dollars (`5`, `12.50`), or undefined when unset (no cap). */
const dollars = optionalString
  .refine((v) => v === undefined || (/^\d+(\.\d{1,2})?$/.test(v) && Number(v) > 0), {
    message: 'expected an amount in US dollars above 0, e.g. 5 or 12.50 (leave it unset for no cap)',
  })
  .transform((v) => (v === undefined ? undefined : Number(v)));

/** `SWITCHBOARD_PRICES`: checked here so a bad entry stops start-up, parsed where it is used. */
const priceOverrides = optionalString.superRefine((v, ctx) => {
  if (v === undefined) return;
  try {
    parsePriceOverrides(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^SWITCHBOARD_PRICES: /, '') });
  }
});

/**
 * Web tool domains (Web search tool page: no scheme, subdomains included,
 * a path allowed): `example.com, docs.example.org/blog`.
 */
const domainList = optionalString
  .refine(
    (v) =>
      v === undefined ||
      v.split(',').every((d) => /^[a-z0-9*]([a-z0-9.*-]{0,252})(\/[^\s,]*)?$/i.test(d.trim())),
    {
      message:
        'expected comma-separated domains without http:// (example.com, docs.example.org/blog); subdomains are included',
    },
  )
  .transform((v) =>
    v === undefined
      ? []
      : v
          .split(',')
          .map((d) => d.trim().toLowerCase())
          .filter((d) => d.length > 0),
  );

const postgresUrl = optionalString.refine((v) => v === undefined || /^postgres(ql)?:\/\/[^\s]+$/.test(v), {
  message: 'expected a postgres:// URL, e.g. postgres://user:password@db.internal:5432/switchboard',
});

/** The core's variables, one by one; each platform module adds its own (see {@link envSchema}). */
export const coreSchema = z.object({
  ANTHROPIC_API_KEY: z
    .string({
      message:
        'is not set: create an Anthropic API key (at platform.claude.com, under API keys) and put it in .env (see .env.example)',
    })
    .trim()
    .min(1, 'is empty: put your Anthropic API key in .env (see .env.example)'),
  ANTHROPIC_BASE_URL: url('the Messages API base URL'),
  SWITCHBOARD_MODEL: optionalString.transform((v) => v ?? 'claude-sonnet-5-5'),
  SWITCHBOARD_CONTEXT_WINDOW: tokens(1_000, 10_000_000),
  SWITCHBOARD_MAX_OUTPUT_TOKENS: tokens(1, 1_000_000),
  SWITCHBOARD_EFFORT: optionalString
    .refine((v) => v === undefined || (EFFORTS as readonly string[]).includes(v), {
      message: `expected one of ${EFFORTS.join(', ')} (leave it unset for the model's default)`,
    })
    .transform((v) => v as (typeof EFFORTS)[number] | undefined),
  SWITCHBOARD_THINKING: optionalString
    .refine((v) => v === undefined || (THINKING_SETTINGS as readonly string[]).includes(v), {
      message: `expected ${THINKING_SETTINGS.join(' or ')}`,
    })
    .transform((v) => (v ?? 'adaptive') as (typeof THINKING_SETTINGS)[number]),
  SWITCHBOARD_FALLBACK: optionalString
    .refine((v) => v === undefined || v === 'on' || v === 'off', {
      message: 'expected on or off (on: a request the model refuses is retried on the recommended model)',
    })
    .transform((v) => v !== 'off'),
  SWITCHBOARD_WEB_SEARCH: onOff(true),
  SWITCHBOARD_WEB_FETCH: onOff(true),
  SWITCHBOARD_WEB_ALLOWED_DOMAINS: domainList,
  SWITCHBOARD_WEB_BLOCKED_DOMAINS: domainList,
  SWITCHBOARD_WEB_MAX_USES: optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 100), {
      message: 'expected the most searches (and, apart, fetches) per model request, 1-100 (default 5)',
    })
    .transform((v) => (v === undefined ? 5 : Number(v))),
  SWITCHBOARD_DATA_DIR: optionalString.transform((v) => v ?? './data'),
  SWITCHBOARD_WORKSPACE: optionalString.transform((v) => v ?? './workspace'),
  SWITCHBOARD_WORKSPACE_PER_CHAT: bool,
  // Decimal megabytes are allowed (0.5) so a small limit can be set; 1 GB is far past any platform's file size.
  SWITCHBOARD_MAX_FILE_MB: optionalString
    .refine((v) => v === undefined || (/^\d+(\.\d+)?$/.test(v) && Number(v) >= 0.01 && Number(v) <= 1024), {
      message: 'expected the largest file the bot downloads, in MB, between 0.01 and 1024 (default 20)',
    })
    .transform((v) => Math.round((v === undefined ? 20 : Number(v)) * 1024 * 1024)),
  SWITCHBOARD_PERMISSION_MODE: optionalString
    .refine((v) => v === undefined || (PERMISSION_MODES as readonly string[]).includes(v), {
      message: `expected one of ${PERMISSION_MODES.join(', ')}`,
    })
    .transform((v) => (v ?? 'default') as (typeof PERMISSION_MODES)[number]),
  SWITCHBOARD_PROJECT_ACCESS: optionalString
    .refine((v) => v === undefined || v === 'trusted' || v === 'restricted', {
      message: 'expected trusted or restricted',
    })
    .transform((v) => (v ?? 'restricted') as 'trusted' | 'restricted'),
  SWITCHBOARD_SANDBOX: optionalString
    .refine((v) => v === undefined || (SANDBOX_MODES as readonly string[]).includes(v), {
      message: `expected one of ${SANDBOX_MODES.join(', ')}`,
    })
    .transform((v) => (v ?? 'auto') as SandboxMode),
  SWITCHBOARD_SANDBOX_NETWORK: optionalString
    .refine((v) => v === undefined || (SANDBOX_NETWORKS as readonly string[]).includes(v), {
      message: `expected one of ${SANDBOX_NETWORKS.join(', ')} (bubblewrap cannot allow single hosts)`,
    })
    .transform((v) => (v ?? 'none') as SandboxNetwork),
  SWITCHBOARD_ALLOWED_USERS: userList,
  SWITCHBOARD_ADMINS: userList,
  SWITCHBOARD_LINKED_USERS: linkedUsers,
  SWITCHBOARD_APPROVERS: userList,
  SWITCHBOARD_SELF_APPROVAL: onOff(true),
  SWITCHBOARD_BUDGET_USER_DAY: dollars,
  SWITCHBOARD_BUDGET_CHAT_DAY: dollars,
  SWITCHBOARD_BUDGET_MONTH: dollars,
  SWITCHBOARD_APPROVAL_TIMEOUT: seconds(600, 86_400),
  SWITCHBOARD_IDLE_RELEASE: seconds(600, 86_400),
  SWITCHBOARD_STREAM_TIMEOUT: seconds(120, 3_600),
  SWITCHBOARD_TIMEZONE: optionalString
    .refine((v) => v === undefined || isTimeZone(v), {
      message: 'expected an IANA time zone such as UTC, Europe/Berlin or America/New_York',
    })
    .transform((v) => v ?? 'UTC'),
  SWITCHBOARD_SCHEDULE_GRACE: seconds(3_600, 7 * 86_400),
  SWITCHBOARD_UNATTENDED_APPROVALS: optionalString
    .refine((v) => v === undefined || v === 'ask' || v === 'deny', { message: 'expected ask or deny' })
    .transform((v) => (v ?? 'ask') as 'ask' | 'deny'),
  SWITCHBOARD_BUSY: optionalString
    .refine((v) => v === undefined || (BUSY_MODES as readonly string[]).includes(v), {
      message: `expected one of ${BUSY_MODES.join(', ')}`,
    })
    .transform((v) => (v ?? 'steer') as BusyMode),
  SWITCHBOARD_DATABASE_URL: postgresUrl,
  SWITCHBOARD_DATABASE_SCHEMA: optionalString.refine(
    (v) => v === undefined || /^[a-z_][a-z0-9_]{0,47}$/.test(v),
    {
      message:
        'expected a plain lower-case identifier (a-z, 0-9 and _, not starting with a digit, at most 48)',
    },
  ),
  SWITCHBOARD_LEASE_TTL: seconds(30, 3_600),
  SWITCHBOARD_CACHE: optionalString
    .refine((v) => v === undefined || (CACHE_SETTINGS as readonly string[]).includes(v), {
      message: `expected one of ${CACHE_SETTINGS.join(', ')}`,
    })
    .transform((v) => (v ?? 'auto') as CacheSetting),
  SWITCHBOARD_PRICES: priceOverrides,
  SWITCHBOARD_TRANSCRIBE_URL: url(
    'the full URL of an OpenAI-compatible transcription endpoint, e.g. http://localhost:8000/v1/audio/transcriptions',
  ),
  SWITCHBOARD_TRANSCRIBE_MODEL: optionalString,
  SWITCHBOARD_TRANSCRIBE_KEY: optionalString,
  SWITCHBOARD_MAX_AUDIO_SECONDS: optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 14_400), {
      message:
        'expected the longest voice note transcribed, in whole seconds between 1 and 14400 (default 600)',
    })
    .transform((v) => (v === undefined ? 600 : Number(v))),
  SWITCHBOARD_KEEP_AUDIO: boolDefaultTrue,
  SWITCHBOARD_TRANSCRIBE_PRICE: optionalString
    .refine((v) => v === undefined || (/^\d+(\.\d+)?$/.test(v) && Number(v) <= 100), {
      message: 'expected US dollars per minute of audio, e.g. 0.006 (leave it unset to show minutes only)',
    })
    .transform((v) => (v === undefined ? undefined : Number(v))),
  SWITCHBOARD_ALLOW_MENTIONS: optionalString
    .refine((v) => v === undefined || (MENTION_POLICIES as readonly string[]).includes(v), {
      message: `expected one of ${MENTION_POLICIES.join(', ')} (none: the model's mentions reach the chat as text)`,
    })
    .transform((v) => (v ?? 'none') as MentionPolicy),
  SWITCHBOARD_LOG_LEVEL: optionalString
    .refine(
      (v) => v === undefined || ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(v),
      {
        message: 'expected one of fatal, error, warn, info, debug, trace, silent',
      },
    )
    .transform((v) => v ?? 'info'),
  SWITCHBOARD_LOG_FORMAT: optionalString
    .refine((v) => v === undefined || ['auto', 'pretty', 'json'].includes(v), {
      message: 'expected auto (readable on a terminal, JSON otherwise), pretty or json',
    })
    .transform((v) => (v ?? 'auto') as 'auto' | 'pretty' | 'json'),
  SWITCHBOARD_LOG_FILE: optionalString,
  /** MCP servers: a file in the shape of Claude Code's `.mcp.json`, read and checked by loadConfig. */
  SWITCHBOARD_MCP_CONFIG: optionalString,
  /** Most seconds an MCP call may go without a word from its server (result or progress). */
  SWITCHBOARD_MCP_TIMEOUT: seconds(30, 3_600),
  /** The bot's public base URL (as a browser reaches SWITCHBOARD_HTTP_PORT): MCP sign-in redirects come back there. */
  SWITCHBOARD_PUBLIC_URL: url('the address at which a browser reaches SWITCHBOARD_HTTP_PORT'),
  /** 32 random bytes (base64 or hex) that encrypt MCP sign-in tokens at rest; without it there is no MCP sign-in. */
  SWITCHBOARD_SECRET_KEY: optionalString.refine(
    (v) =>
      v === undefined || /^[0-9a-fA-F]{64}$/.test(v.trim()) || Buffer.from(v.trim(), 'base64').length === 32,
    { message: 'expected 32 random bytes in base64 or hex (make one with `openssl rand -base64 32`)' },
  ),
  SWITCHBOARD_HTTP_PORT: optionalString
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) <= 65535), {
      message: 'expected a port number (0-65535) for /healthz, /readyz and /metrics',
    })
    .transform((v) => (v === undefined ? undefined : Number(v))),
});

/**
 * The raw environment, variable by variable: the core's variables and every
 * platform module's, in one schema so that a bad value anywhere is reported
 * with all the others.
 */
export const envSchema = coreSchema.extend(platformVariables());

/** The environment after validation: the core's values typed, the platforms' for their modules to read. */
export type ParsedEnv = z.output<typeof coreSchema> & Record<string, unknown>;

/** Every module's variables, refusing one that two parts declare. */
function platformVariables(): z.ZodRawShape {
  const shape: Record<string, z.ZodRawShape[string]> = {};
  for (const platform of PLATFORMS) {
    for (const [name, field] of Object.entries(platform.env)) {
      if (name in coreSchema.shape || name in shape)
        throw new TypeError(
          `${name} is declared twice (platform "${platform.id}"): a variable has one owner`,
        );
      shape[name] = field;
    }
  }
  return shape;
}
