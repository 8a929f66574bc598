/**
 * Discord failures as the core's error codes: 429s (discord.js's
 * RateLimitError for the calls that report them, or a raw 429) become our RateLimitError with
 * the wait and whether it is global, a content over 2000 characters
 * MESSAGE_TOO_LONG, unknown messages or channels NOT_FOUND, a bad token
 * PLATFORM_AUTH; the rest PLATFORM_ERROR.
 */
import { DiscordAPIError, RateLimitError as DiscordRateLimitError, HTTPError } from 'discord.js';
import { RateLimitError, SwitchboardError } from '../../src/errors.js';

/** Discord's JSON error codes that mean "the thing is gone". */
const GONE = new Set([10003, 10008, 10015, 10062]);

/** Maps anything discord.js threw during `what` ("edit message") to a SwitchboardError. */
export function toSwitchboardError(err: unknown, what: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  if (err instanceof DiscordRateLimitError) {
    // A 429 carries Discord's Retry-After; a bucket discord.js already knew
    // was empty, the time to its reset (both in ms, its offset included).
    const waitMs = Math.max(0, Math.ceil(err.retryAfter > 0 ? err.retryAfter : err.timeToReset));
    // https://discord.com/developers/docs/topics/rate-limits: the global limit
    // holds back every call of the bot; a route's (or a shared resource's)
    // only that channel's, which is the chat.
    return new RateLimitError(`Discord rate limit on ${what}; retry in ${waitMs} ms.`, {
      cause: err,
      retryAfterMs: waitMs,
      scope: err.global ? 'global' : 'chat',
      detail: { route: err.route, discordScope: err.scope },
    });
  }
  if (err instanceof DiscordAPIError) {
    const raw = err.rawError as { retry_after?: number; global?: boolean };
    if (err.status === 429) {
      // https://discord.com/developers/docs/topics/rate-limits: the body's
      // `global` says whether the whole bot, not one route, must wait.
      return new RateLimitError(`Discord rate limit on ${what}.`, {
        cause: err,
        retryAfterMs: Math.ceil((raw.retry_after ?? 1) * 1000),
        scope: raw.global === true ? 'global' : 'chat',
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
