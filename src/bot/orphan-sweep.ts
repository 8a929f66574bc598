/**
 * Finding the turns a dead or stalled replica cut short: turns begun and
 * never ended whose chat no live replica holds. Each is ended in the state
 * store before it is returned, so whoever ends it announces it, once.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { claimOrphanedTurns } from '../cluster/orphans.js';
import type { ChatLease } from '../cluster/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ActiveTurn, BotStateStore } from '../store/types.js';

/** What {@link OrphanSweep} looks through. */
export interface OrphanSweepOptions {
  lease: ChatLease;
  ttlMs: number;
  stateStore: BotStateStore;
  clock: Clock;
  logger: Logger;
}

/** Claims cut turns at start-up and then about once per lease ttl. */
export class OrphanSweep {
  readonly #o: OrphanSweepOptions;
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(options: OrphanSweepOptions) {
    this.#o = options;
  }

  /** The cut turns no live replica runs, each ended in the state store. */
  async claim(): Promise<ActiveTurn[]> {
    const { lease, stateStore, ttlMs } = this.#o;
    const out: ActiveTurn[] = [];
    for (const { turn, lease: held } of await claimOrphanedTurns(stateStore, lease, { ttlMs })) {
      try {
        // A turn that began after the listing is someone's live turn, not an orphan.
        const still = (await stateStore.activeTurns()).find((t) => t.chat === turn.chat);
        if (still?.startedAt !== turn.startedAt) continue;
        await stateStore.endTurn(turn.chat);
        out.push(turn);
      } finally {
        await held.release();
      }
    }
    return out;
  }

  /**
   * Claims cut turns about once per ttl: a dead replica's leases free
   * themselves only after it, so one look at start-up misses them.
   */
  every(onOrphan: (turn: ActiveTurn) => void): void {
    const { clock, logger, ttlMs } = this.#o;
    const tick = () => {
      this.#timer = undefined;
      if (this.#closed) return;
      this.claim()
        .then((turns) => turns.forEach(onOrphan))
        .catch((err: unknown) => logger.warn({ err: describeError(err) }, 'orphaned turn sweep failed'))
        .finally(() => {
          if (!this.#closed) this.#timer = clock.setTimeout(tick, ttlMs);
        });
    };
    this.#timer = clock.setTimeout(tick, ttlMs);
  }

  /** Stops sweeping. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
