/**
 * Turns Anthropic SDK errors into {@link SwitchboardError}s whose messages can
 * be shown in a chat: what went wrong and what to do, never the API key.
 */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { type ErrorCode, SwitchboardError, type SwitchboardErrorOptions } from '../errors.js';
import { scrubSecrets } from '../logger.js';

const CONTEXT_TOO_LONG = /prompt is too long|too many tokens|context (window|length)|maximum context/i;

/** Where a 400 points into the conversation, and what kind of block it blames. */
export interface BadContentDetail {
  problem: 'image' | 'thinking' | 'block';
  messageIndex?: number;
  blockIndex?: number;
}

/**
 * Reads a 400's message for a fault in the session's own content (an image
 * over the limits, a thinking block the API will not take back, a block it
 * names by position). Anything else is not the content's fault.
 */
export function badContent(apiMessage: string): BadContentDetail | undefined {
  const at = /messages\.(\d+)\.content\.(\d+)/.exec(apiMessage);
  const where = at ? { messageIndex: Number(at[1]), blockIndex: Number(at[2]) } : {};
  if (/image/i.test(apiMessage) && /exceed|too large|dimension|maximum|MB/i.test(apiMessage))
    return { problem: 'image', ...where };
  // Only a thinking block in the messages is the content's fault; a thinking setting is not.
  if (at && /thinking|signature/i.test(apiMessage)) return { problem: 'thinking', ...where };
  if (at) return { problem: 'block', ...where };
  return undefined;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && !Number.isNaN(Number.parseFloat(ms))) return Number.parseFloat(ms);
  const s = headers?.get('retry-after');
  if (s && !Number.isNaN(Number.parseFloat(s))) return Number.parseFloat(s) * 1000;
  return undefined;
}

/**
 * Maps anything the SDK throws (or an abort) to a SwitchboardError.
 *
 * @param secrets values removed from every message (the API key).
 */
export function mapProviderError(
  err: unknown,
  signal: AbortSignal | undefined,
  secrets: readonly string[],
): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  const clean = (text: string) => scrubSecrets(text, secrets);
  if (err instanceof APIUserAbortError || signal?.aborted) {
    return new SwitchboardError('ABORTED', 'The request to the model was stopped.', { cause: err });
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new SwitchboardError(
      'PROVIDER_ERROR',
      'The Anthropic API did not answer in time. Try again in a moment.',
      { cause: err },
    );
  }
  if (err instanceof APIConnectionError) {
    return new SwitchboardError(
      'PROVIDER_ERROR',
      'Could not reach the Anthropic API (network error). Check the connection or ANTHROPIC_BASE_URL and try again.',
      { cause: err },
    );
  }
  if (err instanceof APIError) {
    // Errors page: quote the request-id in every support request; it ends the message, so the
    // log line of the failed call and the chat's error text both carry it.
    const requestId = err.requestID ?? undefined;
    const fail = (code: ErrorCode, message: string, options: SwitchboardErrorOptions) =>
      new SwitchboardError(code, requestId ? `${message} (request ${requestId})` : message, {
        ...options,
        detail: { ...(options.detail ?? {}), ...(requestId ? { requestId } : {}) },
      });
    const status = err.status;
    const type = err.type ?? '';
    const apiMessage = clean(err.apiMessage ?? err.message);
    const detail = { status, type, apiMessage };
    if (status === 401 || type === 'authentication_error') {
      return fail(
        'PROVIDER_AUTH',
        'ANTHROPIC_API_KEY was rejected by the Anthropic API (401): check the key in .env and restart.',
        { cause: err, detail },
      );
    }
    if (status === 403 || type === 'permission_error') {
      return fail(
        'PROVIDER_AUTH',
        `The Anthropic API refused this request (403): the API key may lack access to this model. ${apiMessage}`,
        { cause: err, detail },
      );
    }
    if (status === 429 || type === 'rate_limit_error') {
      const wait = retryAfterMs(err.headers);
      return fail(
        'PROVIDER_RATE_LIMITED',
        `The Anthropic API rate limit was reached${wait ? `; try again in ${Math.ceil(wait / 1000)} s` : '; try again in a minute'}.`,
        { cause: err, detail, ...(wait === undefined ? {} : { retryAfterMs: wait }) },
      );
    }
    if (status === 529 || type === 'overloaded_error') {
      return fail(
        'PROVIDER_OVERLOADED',
        'The Anthropic API is overloaded right now. Try again in a minute.',
        { cause: err, detail },
      );
    }
    if (status === 413 || (status === 400 && CONTEXT_TOO_LONG.test(apiMessage))) {
      return fail(
        'PROVIDER_CONTEXT_TOO_LONG',
        'The conversation is too long for the model: use /compact to summarize it, or /new to start over.',
        { cause: err, detail },
      );
    }
    const bad = status === 400 ? badContent(apiMessage) : undefined;
    if (bad) {
      return fail(
        'PROVIDER_BAD_CONTENT',
        `The Anthropic API refused part of the conversation (${apiMessage}). The session repairs it and tries again; if this stays, use /compact or /new.`,
        { cause: err, detail: { ...detail, ...bad } },
      );
    }
    if (status === undefined) {
      return fail(
        'PROVIDER_ERROR',
        `The Anthropic API reported an error in the middle of the reply (${type || 'error'}): ${apiMessage}. Try again.`,
        { cause: err, detail },
      );
    }
    return fail(
      'PROVIDER_ERROR',
      `The Anthropic API answered ${status}${type ? ` (${type})` : ''}: ${apiMessage}`,
      { cause: err, detail },
    );
  }
  // Anything else comes from the transport below the SDK (undici's "terminated",
  // a reset socket) after the response had started.
  const message = err instanceof Error ? err.message : String(err);
  return new SwitchboardError(
    'PROVIDER_ERROR',
    `The connection to the Anthropic API broke off during the reply (${clean(message)}). Try again.`,
    { cause: err },
  );
}
