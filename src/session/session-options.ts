/** Options of {@link InteractiveSession}, their defaults and checks. */
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CacheSetting } from '../provider/cache.js';
import type { Provider } from '../provider/types.js';
import type { WebSettings } from '../provider/web-tools.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { SessionStore } from '../store/types.js';
import type { Tool, ToolSource } from '../tools/types.js';
import {
  type ChatSchedules,
  type FileSender,
  PERMISSION_MODES,
  type PermissionMode,
  type ProjectAccess,
  type SessionHooks,
} from './types.js';

/** Default auto-compaction threshold: 83.5% of the context window. */
export const DEFAULT_AUTO_COMPACT_THRESHOLD = 0.835;
/** Default idle time after which a silent provider stream is aborted. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
/** Output tokens asked for per request (capped by the model's own limit). */
export const REQUEST_MAX_TOKENS = 16_384;

/** Options for {@link InteractiveSession}. */
export interface InteractiveSessionOptions {
  /** The workspace: tools are confined to it. */
  cwd: string;
  provider: Provider;
  /** Where the session saves itself after each turn; without one nothing is saved. */
  sessionStore?: SessionStore;
  /** Name of a new session; on resume, renames it. */
  sessionName?: string;
  /** Loads this saved session (`ready` rejects when it is missing, corrupt or unsupported). */
  resumeSessionId?: string;
  /** With `resumeSessionId`: start a new session (new id) from the same history. */
  forkSession?: boolean;
  /** Mode of a new session (default `default`); a resumed session keeps its saved mode. */
  permissionMode?: PermissionMode;
  /** Fraction of the window that triggers compaction before a turn (default 0.835), or false. */
  autoCompactThreshold?: number | false;
  /** `restricted` (default) loads nothing from the project; `trusted` reads AGENTS.md / CLAUDE.md. */
  projectAccess?: ProjectAccess;
  model?: string;
  /** Replaces the built-in base system prompt (project instructions are still appended when trusted). */
  systemPrompt?: string;
  hooks?: SessionHooks;
  /** Tools offered to the model; default the seven built-in tools. */
  tools?: Tool[];
  /** Tools that come and go (MCP servers), offered after `tools`; taken afresh at the start of each turn. */
  toolSource?: ToolSource;
  clock?: Clock;
  logger?: Logger;
  /** Owner key stored with a new session (`platform:userId`). */
  owner?: string;
  /** Unanswered permission requests are denied after this long (default 10 min). */
  permissionTimeoutMs?: number;
  /** Prompts that may wait behind the running turn (default 32). */
  queueLimit?: number;
  /** A provider stream silent this long is aborted (default 120 s). */
  streamIdleTimeoutMs?: number;
  /** Environment for custom tools' child processes; only an allowlist passes (default: this process's). */
  toolEnv?: NodeJS.ProcessEnv;
  /**
   * Where the built-in tools open files and run commands: one sandbox per
   * turn (default `new Sandbox()`, mode `auto`: bubblewrap when it works,
   * otherwise the file tools still work and Bash is refused).
   */
  sandbox?: Sandbox;
  /** Most model calls in one turn (default 50). */
  maxIterations?: number;
  /**
   * Prompt caching: `auto` (default) picks the 1-hour lifetime for a chat
   * whose messages come minutes apart and the 5-minute one otherwise; `5m`,
   * `1h` or `off`.
   */
  cache?: CacheSetting;
  /**
   * Web search and fetch, run by the API: declared on the models that take
   * them (the registry's `webTools`). Default none; the ready bot passes
   * SWITCHBOARD_WEB_*.
   */
  web?: WebSettings;
}

/** What the caller of one `submit()` lends that turn. */
export interface SubmitOptions {
  /** Delivers the files the agent sends (SendFile) into the caller's chat; without it SendFile says there is no chat. */
  sendFile?: FileSender;
  /** Makes schedules in the caller's chat (Schedule); without it Schedule says there is no chat. */
  schedules?: ChatSchedules;
  /**
   * Awaited before every model request of the turn. It may hold the turn
   * (a budget waiting for an extension); a string it returns ends the turn
   * there with that notice, before the request is made.
   */
  beforeRequest?: (signal: AbortSignal) => Promise<string | undefined>;
}

/** The handle `getSession()` returns. */
export interface SessionHandle {
  getSessionId(): string;
  getPermissionMode(): PermissionMode;
  setPermissionMode(mode: PermissionMode): void;
  /** The "allow for this session" grants (`Bash:npm test`), oldest first. */
  listGrants(): string[];
  /** Takes back one grant and saves the session; false when it had none such. */
  revokeGrant(scope: string): boolean;
  /**
   * Waits for the saves queued so far (a rename, a mode, a compaction); the
   * newest one's error when it failed, else undefined. Failures are also
   * emitted as `save_error` when they happen.
   */
  lastSave(): Promise<Error | undefined>;
}

/** Checks an auto-compaction threshold: a fraction in (0, 1], or false. */
export function validThreshold(value: number | false): number | false {
  if (value === false) return false;
  if (typeof value !== 'number' || !(value > 0 && value <= 1)) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `autoCompactThreshold must be a fraction between 0 and 1 (like 0.835), or false; got ${String(value)}.`,
    );
  }
  return value;
}

/** Checks a permission mode coming from outside (a command, a saved record). */
export function checkPermissionMode(mode: PermissionMode): PermissionMode {
  if (!PERMISSION_MODES.includes(mode)) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Unknown permission mode "${String(mode)}": use one of ${PERMISSION_MODES.join(', ')}.`,
    );
  }
  return mode;
}
