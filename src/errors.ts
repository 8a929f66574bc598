/**
 * One error type for the whole project: a stable `code` to branch on, the
 * underlying `cause`, and a message written for the person who must fix it.
 */

/** Stable error codes. Add new ones at the end; never rename one. */
export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'PROVIDER_AUTH'
  | 'PROVIDER_OVERLOADED'
  | 'PROVIDER_RATE_LIMITED'
  | 'PROVIDER_CONTEXT_TOO_LONG'
  | 'PROVIDER_BAD_CONTENT'
  | 'PROVIDER_STALLED'
  | 'PROVIDER_ERROR'
  | 'ABORTED'
  | 'QUEUE_FULL'
  | 'SESSION_MISSING'
  | 'SESSION_CORRUPT'
  | 'SESSION_UNSUPPORTED'
  | 'SESSION_BUSY'
  | 'INVALID_NAME'
  | 'STORE_WRITE_FAILED'
  | 'TOOL_PATH_ESCAPE'
  | 'TOOL_FAILED'
  | 'PERMISSION_DENIED'
  | 'RATE_LIMITED'
  | 'FORMAT_REJECTED'
  | 'MESSAGE_TOO_LONG'
  | 'NOT_FOUND'
  | 'PLATFORM_AUTH'
  | 'PLATFORM_ERROR'
  | 'COMPACTION_FAILED'
  | 'CAPABILITY_CHANGED'
  | 'STORE_UNAVAILABLE'
  | 'STREAM_UNAVAILABLE'
  | 'DOWNLOAD_TOO_LARGE'
  | 'DOWNLOAD_FAILED'
  | 'PLATFORM_TIMEOUT'
  | 'FILE_TOO_LARGE'
  | 'TRANSCRIPTION_FAILED'
  | 'INVALID_SCHEDULE';

/** Options for {@link SwitchboardError}. */
export interface SwitchboardErrorOptions {
  cause?: unknown;
  /** For `RATE_LIMITED`: how long the platform asked us to wait. */
  retryAfterMs?: number;
  /** Extra machine-readable detail (a variable name, a status). */
  detail?: Record<string, unknown>;
}

/**
 * @example
 * throw new SwitchboardError('CONFIG_INVALID',
 *   'ANTHROPIC_API_KEY is not set: copy .env.example to .env and fill it in.',
 *   { detail: { variable: 'ANTHROPIC_API_KEY' } });
 */
export class SwitchboardError extends Error {
  override readonly name = 'SwitchboardError';
  readonly code: ErrorCode;
  readonly retryAfterMs: number | undefined;
  readonly detail: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryAfterMs = options.retryAfterMs;
    this.detail = options.detail ?? {};
  }
}

/**
 * How far a platform's rate limit reaches: `chat` holds back the calls of one
 * chat; `global` every call of the adapter (Telegram's per-bot limit,
 * Discord's global bucket).
 */
export type RateLimitScope = 'chat' | 'global';

/** Options for {@link RateLimitError}. */
export interface RateLimitErrorOptions {
  /** How long the platform asked us to wait. */
  retryAfterMs: number;
  scope: RateLimitScope;
  cause?: unknown;
  detail?: Record<string, unknown>;
}

/**
 * A platform refused a call for its rate limit (`RATE_LIMITED`). The outbox's
 * scheduler waits `retryAfterMs` before any further call in the `scope`, and
 * then makes the call again with the newest content.
 *
 * @example
 * throw new RateLimitError('Telegram asked to wait 3 s before calling editMessageText again.', {
 *   retryAfterMs: 3000, scope: 'chat', cause: err });
 */
export class RateLimitError extends SwitchboardError {
  override readonly retryAfterMs: number;
  readonly scope: RateLimitScope;

  constructor(message: string, options: RateLimitErrorOptions) {
    super('RATE_LIMITED', message, options);
    this.retryAfterMs = options.retryAfterMs;
    this.scope = options.scope;
  }
}

/** True when `err` is a {@link SwitchboardError} with the given code. */
export function isErrorCode(err: unknown, code: ErrorCode): err is SwitchboardError {
  return err instanceof SwitchboardError && err.code === code;
}

/** A short, user-safe description of any thrown value. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
