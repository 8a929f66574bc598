/**
 * Bot Connector failures as switchboard errors, so the core can act on them.
 * The SDK's HTTP client (axios) neither retries nor waits, so every 429
 * reaches the core's one scheduler here.
 *
 * - 429: a RateLimitError with the Retry-After the service sent (1 s when
 *   it sent none). Teams limits each bot per thread and each app per tenant
 *   (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/rate-limit)
 *   without saying which one a 429 was; the thread limit is the one a reply
 *   meets, so the scope is the chat.
 * - 413 / `MessageSizeTooBig`: MESSAGE_TOO_LONG (the core splits).
 * - 400: the activity was refused as written (a card or Markdown Teams
 *   would not take): FORMAT_REJECTED, and the core resends plain text.
 * - 404 (`ConversationNotFound`, `ActivityNotFoundInConversation`): NOT_FOUND.
 * - 403 on a stream ("Stream bot messages", error codes): the person
 *   stopped it or it ran past two minutes: NOT_FOUND (the stream is gone);
 *   streaming not allowed here: STREAM_UNAVAILABLE (the core edits instead).
 * - 401 / other 403: PLATFORM_AUTH; a timeout: PLATFORM_TIMEOUT.
 */
import { RateLimitError, SwitchboardError } from '../../src/errors.js';

interface HttpFailure {
  isAxiosError?: boolean;
  code?: string;
  message?: string;
  response?: { status: number; headers?: Record<string, unknown>; data?: unknown };
}

/** The Bot Connector's error body: `{ error: { code, message } }`. */
function errorBody(data: unknown): { code: string; message: string } {
  const error = (data as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return {
    code: typeof error?.code === 'string' ? error.code : '',
    message: typeof error?.message === 'string' ? error.message : '',
  };
}

/** Retry-After in milliseconds: seconds, or an HTTP date; 1 s when absent or unreadable. */
export function retryAfterMs(value: unknown, now = Date.now()): number {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw === 'number' && Number.isFinite(raw)) return Math.max(0, raw * 1000);
  if (typeof raw === 'string' && raw.trim() !== '') {
    const seconds = Number(raw);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(raw);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  return 1000;
}

/** Converts anything a Bot Connector call threw into a {@link SwitchboardError}. */
export function toSwitchboardError(err: unknown, what: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  const failure = (err ?? {}) as HttpFailure;
  const status = failure.response?.status;
  if (status === undefined) {
    if (failure.code === 'ECONNABORTED' || failure.code === 'ETIMEDOUT')
      return new SwitchboardError(
        'PLATFORM_TIMEOUT',
        `The Bot Connector did not answer ${what} in time; the call is given up. If this keeps happening, check the network to Teams.`,
        { cause: err, detail: { what } },
      );
    return new SwitchboardError(
      'PLATFORM_ERROR',
      `Could not reach the Bot Connector for ${what}: ${failure.message ?? String(err)}`,
      { cause: err, detail: { what } },
    );
  }
  const body = errorBody(failure.response?.data);
  const detail = { what, status, teamsError: body.code };
  const lower = body.message.toLowerCase();
  if (status === 429)
    return new RateLimitError(`Teams rate-limited ${what}.`, {
      cause: err,
      retryAfterMs: retryAfterMs(failure.response?.headers?.['retry-after']),
      scope: 'chat',
      detail,
    });
  if (status === 413 || body.code === 'MessageSizeTooBig')
    return new SwitchboardError('MESSAGE_TOO_LONG', `Teams refused ${what}: the message is too large.`, {
      cause: err,
      detail,
    });
  if (status === 404)
    return new SwitchboardError('NOT_FOUND', `Teams has no such conversation or message for ${what}.`, {
      cause: err,
      detail,
    });
  if (status === 403 && (lower.includes('cancel') || lower.includes('exceeded streaming time')))
    return new SwitchboardError('NOT_FOUND', `Teams ended the stream (${body.message}).`, {
      cause: err,
      // The person pressed Teams' own Stop button on the stream.
      detail: { ...detail, streamCancelled: lower.includes('cancel') },
    });
  if (status === 403 && lower.includes('stream'))
    return new SwitchboardError('STREAM_UNAVAILABLE', `Teams does not stream here (${body.message}).`, {
      cause: err,
      detail,
    });
  if (status === 400)
    return new SwitchboardError(
      'FORMAT_REJECTED',
      `Teams refused the message as written in ${what} (${body.code || 'HTTP 400'}).`,
      { cause: err, detail },
    );
  if (status === 401 || status === 403)
    return new SwitchboardError(
      'PLATFORM_AUTH',
      `Teams refused the bot's credentials for ${what} (HTTP ${status}): check TEAMS_APP_ID and TEAMS_APP_PASSWORD, and that the bot is added to this conversation.`,
      { cause: err, detail },
    );
  return new SwitchboardError('PLATFORM_ERROR', `Teams answered HTTP ${status} to ${what}.`, {
    cause: err,
    detail,
  });
}
