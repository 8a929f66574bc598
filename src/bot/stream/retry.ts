/**
 * The one table from a failed platform call to what the outbox does next.
 * The scheduler reads it for every failure: a rate limit pauses the chat (or
 * the adapter) and the call is simply asked for again later; every other
 * action goes to the slot that made the call, which applies it to its own
 * state. Attempts are counted per call target and reset by a success.
 */
import { isErrorCode, RateLimitError, type RateLimitScope } from '../../errors.js';

/** The platform operations the outbox makes. */
export type CallKind = 'send' | 'edit' | 'delete' | 'typing' | 'start' | 'update' | 'finish' | 'upload';

/** What a failure means for the call that failed. */
export type FailureAction =
  /** A rate limit: no call in `scope` before `ms` (the scheduler's business). */
  | { readonly kind: 'pause'; readonly ms: number; readonly scope: RateLimitScope }
  /** Formatting rejected: make the same call with plain text. */
  | { readonly kind: 'plain' }
  /** The text did not fit, or the platform's features changed: lay out again (smaller after `shrink`). */
  | { readonly kind: 'relayout'; readonly shrink: boolean; readonly delayMs: number }
  /** No native stream here: carry the reply on in edited messages. */
  | { readonly kind: 'edits' }
  /** The message or stream the call changes is gone. */
  | { readonly kind: 'gone' }
  /** Try the same call again after `delayMs`. */
  | { readonly kind: 'retry'; readonly delayMs: number }
  /** The call failed too often: the slot's fallback (a new message, or report and stop). */
  | { readonly kind: 'give-up' };

/** What the table needs to know about the failed call. */
export interface FailedCall {
  readonly kind: CallKind;
  /** This failure's number for the same target, from 1. */
  readonly attempt: number;
  /** The call already carried plain text. */
  readonly plain: boolean;
}

/** Wait before a retry when a rate limit names none. */
const DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * Failures (other than rate limits, formatting and layout) before a call
 * gives up. Sends try longest: giving up on one loses text, while a failed
 * edit still has a fallback (its text goes out as a new message).
 */
const ATTEMPTS: Readonly<Record<CallKind, number>> = {
  send: 6,
  edit: 3,
  delete: 3,
  typing: Number.POSITIVE_INFINITY,
  start: 3,
  update: 3,
  finish: 3,
  // The agent waits on an upload (SendFile): a refusal reaches it after a few seconds, not a minute.
  upload: 3,
};

/**
 * Layouts after MESSAGE_TOO_LONG or CAPABILITY_CHANGED before a call gives
 * up: each MESSAGE_TOO_LONG shrinks the chat's length by a fifth, so six
 * reach a quarter of what the platform declared.
 */
const RELAYOUTS = 6;
/** Relayouts that go at once; later ones back off, so a platform that keeps refusing is not asked in a tight loop. */
const FREE_RELAYOUTS = 2;

/** Backoff before retry `attempt` (from 1) of a failed call: 1, 2, 4, 8, 8... seconds. */
export function retryDelayMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt - 1), 8000);
}

/** What to do after `err` failed `call`. */
export function failureAction(err: unknown, call: FailedCall): FailureAction {
  if (isErrorCode(err, 'RATE_LIMITED')) {
    return {
      kind: 'pause',
      ms: err.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS,
      // An adapter outside this project may throw a bare RATE_LIMITED: hold back its chat.
      scope: err instanceof RateLimitError ? err.scope : 'chat',
    };
  }
  // The same bytes are as large on the next attempt.
  if (isErrorCode(err, 'FILE_TOO_LARGE')) return { kind: 'give-up' };
  if (isErrorCode(err, 'FORMAT_REJECTED') && !call.plain) return { kind: 'plain' };
  const tooLong = isErrorCode(err, 'MESSAGE_TOO_LONG');
  if (tooLong || isErrorCode(err, 'CAPABILITY_CHANGED')) {
    if (call.attempt > RELAYOUTS) return { kind: 'give-up' };
    const delayMs = call.attempt > FREE_RELAYOUTS ? retryDelayMs(call.attempt - FREE_RELAYOUTS) : 0;
    return { kind: 'relayout', shrink: tooLong, delayMs };
  }
  if (isErrorCode(err, 'STREAM_UNAVAILABLE')) return { kind: 'edits' };
  // NOT_FOUND on a send, an upload or a stream start is a chat the platform cannot find now: an ordinary failure.
  const creates = call.kind === 'send' || call.kind === 'start' || call.kind === 'upload';
  if (isErrorCode(err, 'NOT_FOUND') && !creates) return { kind: 'gone' };
  if (call.attempt >= ATTEMPTS[call.kind]) return { kind: 'give-up' };
  return { kind: 'retry', delayMs: retryDelayMs(call.attempt) };
}
