/**
 * When a platform counted each call. A platform counts a call when it
 * arrives, somewhere between its start and its answer. Pacing from the start
 * lets the call after a slow request land under the interval; pacing from
 * the answer costs every call a round trip. So a call counts from its answer
 * less the platform's fastest recent round trip: the start, for a call as
 * fast as usual; later by exactly the extra delay, for a slow one.
 */
import type { Clock } from '../../clock.js';
import { RecentMinimum } from './budget.js';

/** What a pace counts against: one message, or one native stream, of a chat. */
export interface PaceKey {
  /** The adapter whose round trips time the calls. */
  readonly platform: string;
  readonly chat: string;
  readonly kind: 'message' | 'stream';
  /** The message id, or the stream handle's id. */
  readonly id: string;
}

/** The map key of a {@link PaceKey}; only ever built, never parsed back. */
const slotOf = (key: PaceKey) => `${key.kind}\u0000${key.chat}\u0000${key.id}`;

/** Round trips remembered per platform. */
const RTT_SAMPLES = 32;
/** Paced keys older than this are forgotten (their pace cannot matter any more). */
const PACE_HORIZON_MS = 10 * 60_000;

/** The last call time of each paced key (a message, a stream) and each platform's round trips. */
export class PaceBook {
  readonly #clock: Clock;
  readonly #pace = new Map<string, number>();
  readonly #rtt = new Map<string, RecentMinimum>();
  #sweepAt = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** When the key last had a call counted. */
  last(key: PaceKey): number | undefined {
    return this.#pace.get(slotOf(key));
  }

  /** Counts a call on `key` at `at`; returns true when old keys were just swept (once per horizon). */
  mark(key: PaceKey, at: number): boolean {
    this.#pace.set(slotOf(key), at);
    const now = this.#clock.now();
    if (now < this.#sweepAt) return false;
    this.#sweepAt = now + PACE_HORIZON_MS;
    for (const [k, t] of this.#pace) if (t < now - PACE_HORIZON_MS) this.#pace.delete(k);
    return true;
  }

  /** The latest a call started at `startedAt` and answered now can have reached `platform`. */
  arrivedBy(platform: string, startedAt: number): number {
    return Math.max(startedAt, this.#clock.now() - (this.#rtt.get(platform)?.value ?? 0));
  }

  /** Adds one round trip, ending now, to the platform's recent ones. */
  noteRoundTrip(platform: string, startedAt: number): void {
    let rtt = this.#rtt.get(platform);
    if (!rtt) {
      rtt = new RecentMinimum(RTT_SAMPLES);
      this.#rtt.set(platform, rtt);
    }
    rtt.add(this.#clock.now() - startedAt);
  }
}
