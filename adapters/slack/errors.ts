/**
 * Slack Web API failures as switchboard errors, so the core can act on them:
 * 429s become a RateLimitError with Slack's Retry-After and its scope (the
 * clients are built with `rejectRateLimitedCalls`, so the SDK never waits by
 * itself), length errors MESSAGE_TOO_LONG, block errors FORMAT_REJECTED (the
 * core resends plain), a missing method or message NOT_FOUND, a request the
 * client's timeout gave up on PLATFORM_TIMEOUT.
 */
import { webApi } from '@slack/bolt';
import { RateLimitError, type RateLimitScope, SwitchboardError } from '../../src/errors.js';

const { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } = webApi;

const TOO_LONG = new Set(['msg_too_long', 'msg_blocks_too_long', 'markdown_text_too_long']);
const FORMAT = new Set(['invalid_blocks', 'invalid_blocks_format', 'invalid_attachments']);
const GONE = new Set([
  'unknown_method',
  'method_not_supported',
  'message_not_found',
  'channel_not_found',
  'thread_not_found',
  'message_not_in_streaming_state',
]);
const AUTH = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);

/**
 * Slack limits each method per app per workspace, except chat.postMessage,
 * which allows about one message per second per channel
 * (https://docs.slack.dev/apis/web-api/rate-limits). One adapter serves one
 * workspace, so a 429 on any other method holds back every chat.
 */
function rateLimitScope(method: string): RateLimitScope {
  return method === 'chat.postMessage' ? 'chat' : 'global';
}

/** The Slack error string of a Web API failure (`msg_too_long`), if there is one. */
export function slackErrorCode(err: unknown): string | undefined {
  if (err instanceof WebAPIPlatformError) return err.data.error;
  return undefined;
}

/** Converts anything a Web API call threw into a {@link SwitchboardError}. */
export function toSwitchboardError(err: unknown, method: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  if (err instanceof WebAPIRateLimitedError)
    return new RateLimitError(`Slack rate-limited ${method}; retry in ${err.retryAfter} s.`, {
      cause: err,
      retryAfterMs: Math.max(0, err.retryAfter) * 1000,
      scope: rateLimitScope(method),
    });
  if (err instanceof WebAPIPlatformError) {
    const code = err.data.error;
    const detail = { method, slackError: code };
    if (code === 'ratelimited')
      return new RateLimitError(`Slack rate-limited ${method}.`, {
        cause: err,
        retryAfterMs: 1000,
        scope: rateLimitScope(method),
        detail,
      });
    if (TOO_LONG.has(code))
      return new SwitchboardError(
        'MESSAGE_TOO_LONG',
        `Slack refused ${method}: the text is too long (${code}).`,
        {
          cause: err,
          detail,
        },
      );
    if (FORMAT.has(code))
      return new SwitchboardError(
        'FORMAT_REJECTED',
        `Slack refused the message layout in ${method} (${code}).`,
        {
          cause: err,
          detail,
        },
      );
    if (GONE.has(code))
      return new SwitchboardError('NOT_FOUND', `Slack answered ${code} to ${method}.`, {
        cause: err,
        detail,
      });
    if (AUTH.has(code))
      return new SwitchboardError(
        'PLATFORM_AUTH',
        `Slack rejected the bot token (${code}): check SLACK_BOT_TOKEN (xoxb-...) and that the app is installed in the workspace.`,
        { cause: err, detail },
      );
    return new SwitchboardError('PLATFORM_ERROR', `Slack answered ${code} to ${method}.`, {
      cause: err,
      detail,
    });
  }
  if (err instanceof WebAPIHTTPError) {
    const detail = { method, status: err.statusCode };
    if (err.statusCode === 404)
      return new SwitchboardError('NOT_FOUND', `Slack has no ${method} here (HTTP 404).`, {
        cause: err,
        detail,
      });
    return new SwitchboardError('PLATFORM_ERROR', `Slack answered HTTP ${err.statusCode} to ${method}.`, {
      cause: err,
      detail,
    });
  }
  if (err instanceof WebAPIRequestError && err.original.name === 'TimeoutError')
    return new SwitchboardError(
      'PLATFORM_TIMEOUT',
      `Slack did not answer ${method} in time; the call is given up and retried. If this keeps happening, check the network to Slack (or SLACK_API_URL).`,
      { cause: err, detail: { method } },
    );
  if (err instanceof WebAPIRequestError)
    return new SwitchboardError(
      'PLATFORM_ERROR',
      `Could not reach Slack for ${method}: ${err.original.message}`,
      {
        cause: err,
        detail: { method },
      },
    );
  const message = err instanceof Error ? err.message : String(err);
  return new SwitchboardError('PLATFORM_ERROR', `Slack ${method} failed: ${message}`, {
    cause: err,
    detail: { method },
  });
}
