/**
 * When one message of a streamed reply may make its next call: its own
 * rules (message order, first word, backoff, the message's pace). The
 * scheduler adds the chat's and the adapter's budgets. Pure functions of the
 * reply's segments.
 */
import type { Clock, TimerHandle } from '../../clock.js';
import type { ChatAdapter, ChatCapabilities } from '../adapter-contract.js';
import { liveIntervalMs } from './message-parts.js';
import type { PaceKey } from './pace.js';
import type { PaceView } from './scheduler.js';
import { isSettled, type Segment } from './segment.js';

/** Longest wait for a whole first word before the first message is sent anyway. */
const FIRST_WORD_WAIT_MS = 300;

/** What the pace of a reply's segment depends on. */
export interface ReplyPace {
  readonly chat: string;
  readonly segments: readonly Segment[];
  readonly caps: ChatCapabilities;
  readonly markdown: string;
  readonly status: string | undefined;
  /** When the reply's first text arrived. */
  readonly firstTextAt: number | undefined;
  readonly keys: {
    messageKey(chat: string, id: string): PaceKey;
    streamKey(chat: string, id: string): PaceKey;
  };
}

/** The chat's platform may stream natively to it, and the adapter can. */
export function streamsNatively(adapter: ChatAdapter, caps: ChatCapabilities): boolean {
  const a = adapter;
  return (
    caps.nativeStream &&
    typeof a.startStream === 'function' &&
    typeof a.updateStream === 'function' &&
    typeof a.finishStream === 'function'
  );
}

/** The next call creates a message: a send, or a native stream started or finished. */
export function createsMessage(s: Segment): boolean {
  return (s.id === undefined && !s.handle) || (s.handle !== undefined && s.final);
}

/** Only cosmetic work is left; without an id the message must be sent again, which is not cosmetic. */
export function onlyCosmetic(s: Segment): boolean {
  return s.cosmetic && s.final && !isSettled(s) && s.id !== undefined;
}

/**
 * The next call opens a native stream the platform does not see (no budget
 * counts it); where the opening is a request (`nativeStreamStartCounts`), it is budgeted like any.
 */
export function opensLocalStream(s: Segment, caps: ChatCapabilities): boolean {
  return s.delivery === 'native' && !s.handle && !s.final && caps.nativeStreamStartCounts !== true;
}

/**
 * Updates of a message or of an open stream create nothing new. Sends,
 * stream starts and stream finishes do (a finished draft becomes a real
 * message), so they wait until every earlier part has a real message: an
 * open stream is not one yet, and a relayout can leave it waiting for its
 * pace slot.
 */
function blockedByOrder(segment: Segment, segments: readonly Segment[]): boolean {
  if (segment.id !== undefined || (segment.handle && !segment.final)) return false;
  for (const s of segments) {
    if (s === segment) return false;
    if (!isSettled(s) && s.id === undefined) return true;
  }
  return false;
}

/**
 * A first message holding half a word wastes the first pacing slot (the
 * next update may be seconds away in a group): wait briefly for a word
 * boundary.
 */
function firstWordAt(segment: Segment, now: number, r: ReplyPace): number {
  if (segment.start > 0 || r.firstTextAt === undefined || r.status !== undefined) return now;
  if (/\S\s/.test(r.markdown)) return now;
  return r.firstTextAt + FIRST_WORD_WAIT_MS;
}

/** Earliest time `segment`'s own rules allow a call; Infinity while an earlier message is missing. */
export function segmentReadyAt(segment: Segment, now: number, pace: PaceView, r: ReplyPace): number {
  if (isSettled(segment) || !segment.dirty) return now;
  if (blockedByOrder(segment, r.segments)) return Number.POSITIVE_INFINITY;
  let at = Math.max(now, segment.notBefore);
  if (!segment.final && segment.id === undefined && !segment.handle)
    at = Math.max(at, firstWordAt(segment, now, r));
  const { handle, id } = segment;
  const key = handle
    ? r.keys.streamKey(r.chat, handle.id)
    : id === undefined
      ? id
      : r.keys.messageKey(r.chat, id);
  const last = key === undefined ? undefined : pace.last(key);
  if (last !== undefined) {
    at = Math.max(at, last + (segment.final ? r.caps.minEditIntervalMs : liveIntervalMs(r.caps)));
  }
  return at;
}

/**
 * A native stream lives only so long on the platform (a Slack stream about
 * five minutes, a Telegram draft about thirty seconds): the timer that makes
 * it a message a margin before that.
 */
export class StreamAgeTimer {
  readonly #clock: Clock;
  #timer: TimerHandle | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `expire` a margin before a stream opened at `at` reaches the chat's `nativeStreamMaxMs`. */
  start(at: number, caps: ChatCapabilities, expire: () => void): void {
    if (!caps.nativeStreamMaxMs) return;
    const margin = Math.max(2 * liveIntervalMs(caps), caps.nativeStreamMaxMs * 0.1);
    this.clear();
    const delay = Math.max(0, at + caps.nativeStreamMaxMs - margin - this.#clock.now());
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      expire();
    }, delay);
  }

  clear(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
