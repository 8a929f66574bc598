/**
 * What a failed call means for one message of a streamed reply: a pure
 * function from the retry table's action to the change of the segment's
 * record and what the reply does next. The reply (reply.ts) applies it.
 */
import { type CallKind, type FailureAction, retryDelayMs } from './retry.js';
import type { Segment } from './segment.js';

/** The change a failure makes. */
export interface FailurePlan {
  /** Fields of the segment's record to set. */
  readonly patch: Partial<Segment>;
  /** Shrink the chat's message length (MESSAGE_TOO_LONG) before going on. */
  readonly shrink?: boolean;
  /** Lay out every unsettled segment again, or carry on without native streams. */
  readonly followUp?: 'relayout' | 'edits';
  /** The segment may have become (un)settled: delivery waits look again. */
  readonly changed?: boolean;
  readonly log?: { readonly level: 'debug' | 'warn' | 'error'; readonly message: string };
}

/** The message or stream is gone (or failed for good): what it should hold goes out as a new message. */
const AS_NEW_MESSAGE: Partial<Segment> = {
  handle: undefined,
  delivery: 'edits',
  id: undefined,
  sentSig: undefined,
};

/**
 * The plan after `action` for a call of `kind` (undefined: the call could not
 * be built) made for `segment` at `now`.
 */
export function planFailure(
  segment: Readonly<Segment>,
  action: Exclude<FailureAction, { kind: 'pause' }>,
  kind: CallKind | undefined,
  now: number,
): FailurePlan {
  const attempts = segment.attempts + 1;
  switch (action.kind) {
    case 'plain':
      return { patch: { dirty: true, plain: true, finalOutput: undefined } };
    case 'relayout':
      return {
        patch: { dirty: true, attempts, ...(action.delayMs > 0 ? { notBefore: now + action.delayMs } : {}) },
        shrink: action.shrink,
        followUp: 'relayout',
      };
    case 'edits':
      // A stream that could not start leaves nothing behind; one that stopped goes on as a message.
      if (kind === 'start') return { patch: { dirty: true }, followUp: 'edits' };
      return { patch: { dirty: true, ...AS_NEW_MESSAGE }, followUp: 'edits', changed: true };
    case 'gone':
      if (kind === 'delete') return { patch: { dirty: true, id: undefined, delivered: true }, changed: true };
      return { patch: { dirty: true, ...AS_NEW_MESSAGE }, changed: true };
    case 'retry':
      return {
        patch: { dirty: true, attempts, notBefore: now + action.delayMs },
        log: { level: 'debug', message: 'outbox call failed' },
      };
    case 'give-up':
      if (kind === 'start') {
        return {
          patch: { dirty: true, attempts },
          followUp: 'edits',
          log: { level: 'warn', message: 'native stream failed to start; editing messages instead' },
        };
      }
      if (segment.final && (segment.id !== undefined || segment.handle)) {
        return {
          patch: { dirty: true, ...AS_NEW_MESSAGE, attempts: 0 },
          changed: true,
          log: { level: 'warn', message: 'final edit failed; sending the text as a new message' },
        };
      }
      if (segment.id === undefined && !segment.handle) {
        return {
          patch: { dirty: true, attempts, abandoned: true },
          changed: true,
          log: { level: 'error', message: 'outbox could not deliver part of a reply' },
        };
      }
      // A live message: later text tries again; its final form has the fallback above.
      return { patch: { dirty: true, attempts, notBefore: now + retryDelayMs(attempts) } };
  }
}
