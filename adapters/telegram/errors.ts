/**
 * Turns Bot API failures into the adapter contract's error codes, so the
 * core's scheduler can wait out a 429, resend plain text after a formatting
 * rejection, split a too-long text, or re-read capabilities.
 */
import { GrammyError, HttpError } from 'grammy';
import { RateLimitError, SwitchboardError } from '../../src/errors.js';

/** True for Telegram's "message is not modified" answer, which is success. */
export function isNotModified(err: unknown): boolean {
  return (
    err instanceof GrammyError && err.error_code === 400 && /message is not modified/i.test(err.description)
  );
}

/** True when a method is missing on this Bot API server (an older server, or a proxy). */
export function isMethodMissing(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 404;
}

/** Maps any error from a Bot API call to a {@link SwitchboardError}. */
export function toSwitchboardError(err: unknown, method: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  if (err instanceof GrammyError) {
    const description = err.description;
    if (err.error_code === 429) {
      const retryAfter = err.parameters.retry_after ?? 1;
      // Telegram's answer does not say which limit was hit (per chat, per
      // group per minute, or the bot's ~30 per second); the core declares
      // and keeps the global one itself, so a 429 holds back the chat.
      return new RateLimitError(`Telegram asked to wait ${retryAfter} s before calling ${method} again`, {
        cause: err,
        retryAfterMs: retryAfter * 1000,
        scope: 'chat',
      });
    }
    if (err.error_code === 401) {
      return new SwitchboardError(
        'PLATFORM_AUTH',
        'TELEGRAM_BOT_TOKEN was rejected by Telegram (401): check the token from @BotFather',
        { cause: err },
      );
    }
    if (/can't parse entities|can't find end/i.test(description)) {
      return new SwitchboardError('FORMAT_REJECTED', `Telegram rejected the formatting: ${description}`, {
        cause: err,
      });
    }
    if (/message is too long|MESSAGE_TOO_LONG|text is too long/i.test(description)) {
      return new SwitchboardError(
        'MESSAGE_TOO_LONG',
        `Telegram rejected the text as too long: ${description}`,
        { cause: err },
      );
    }
    if (
      /message to (edit|delete) not found|message can't be (edited|deleted)|MESSAGE_ID_INVALID|chat not found/i.test(
        description,
      )
    ) {
      return new SwitchboardError('NOT_FOUND', `Telegram: ${description}`, { cause: err });
    }
    if (err.error_code === 404) {
      return new SwitchboardError('NOT_FOUND', `This Bot API server has no method ${method}`, { cause: err });
    }
    return new SwitchboardError('PLATFORM_ERROR', `Telegram ${method} failed: ${description}`, {
      cause: err,
      detail: { status: err.error_code },
    });
  }
  if (err instanceof HttpError) {
    return new SwitchboardError(
      'PLATFORM_ERROR',
      `Could not reach the Telegram Bot API for ${method}: network error`,
      {
        cause: err,
      },
    );
  }
  return new SwitchboardError(
    'PLATFORM_ERROR',
    `Telegram ${method} failed: ${err instanceof Error ? err.message : String(err)}`,
    {
      cause: err,
    },
  );
}
