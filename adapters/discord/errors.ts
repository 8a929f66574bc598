/**
 * Discord failures as the core's error codes: 429s (a RateLimitError when
 * discord.js is told to reject, or a raw 429) become RATE_LIMITED with the
 * wait, a content over 2000 characters MESSAGE_TOO_LONG, unknown messages or
 * channels NOT_FOUND, a bad token PLATFORM_AUTH; the rest PLATFORM_ERROR.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from 'discord.js';
import { SwitchboardError } from '../../src/errors.js';

/** Discord's JSON error codes that mean "the thing is gone". */
const GONE = new Set([10003, 10008, 10015, 10062]);

/** Maps anything discord.js threw during `what` ("edit message") to a SwitchboardError. */
export function toSwitchboardError(err: unknown, what: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  if (err instanceof RateLimitError) {
    return new SwitchboardError(
      'RATE_LIMITED',
      `Discord rate limit on ${what}; retry in ${err.retryAfter} ms.`,
      {
        cause: err,
        retryAfterMs: Math.max(0, Math.ceil(err.retryAfter)),
        detail: { route: err.route, global: err.global },
      },
    );
  }
  if (err instanceof DiscordAPIError) {
    const raw = err.rawError as { retry_after?: number };
    if (err.status === 429) {
      const retryAfterMs = Math.ceil((raw.retry_after ?? 1) * 1000);
      return new SwitchboardError('RATE_LIMITED', `Discord rate limit on ${what}.`, {
        cause: err,
        retryAfterMs,
      });
    }
    if (err.status === 401) {
      return new SwitchboardError(
        'PLATFORM_AUTH',
        'DISCORD_BOT_TOKEN was rejected by Discord: reset it in the Developer Portal > Bot and update .env.',
        { cause: err },
      );
    }
    if (GONE.has(Number(err.code)) || err.status === 404) {
      return new SwitchboardError('NOT_FOUND', `Discord could not ${what}: ${err.message}`, {
        cause: err,
        detail: { code: err.code },
      });
    }
    if (/content\[BASE_TYPE_MAX_LENGTH\]/.test(err.message)) {
      return new SwitchboardError(
        'MESSAGE_TOO_LONG',
        `Discord refused ${what}: the text is over 2000 characters.`,
        { cause: err },
      );
    }
    return new SwitchboardError('PLATFORM_ERROR', `Discord could not ${what}: ${err.message}`, {
      cause: err,
      detail: { status: err.status, code: err.code },
    });
  }
  if (err instanceof HTTPError) {
    return new SwitchboardError('PLATFORM_ERROR', `Discord answered HTTP ${err.status} to ${what}.`, {
      cause: err,
      detail: { status: err.status },
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new SwitchboardError('PLATFORM_ERROR', `Discord could not ${what}: ${message}`, { cause: err });
}
