/**
 * A sliding-window call budget: at most `count` calls whose start falls in
 * any `windowMs` window. The same arithmetic as the recording adapter's
 * check, so "the scheduler allows it" means "the platform accepts it".
 */
import type { RateBudget } from '../types.js';

/** Call times inside one budget's window. */
export class BudgetWindow {
  #times: number[] = [];
  #head = 0;

  /** Drops calls that left the window ending at `now`. */
  #prune(now: number, windowMs: number): void {
    while (this.#head < this.#times.length && this.#times[this.#head]! <= now - windowMs) this.#head++;
    if (this.#head > 64 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Calls counted at `now`. */
  used(now: number, budget: RateBudget): number {
    this.#prune(now, budget.windowMs);
    return this.#times.length - this.#head;
  }

  /** Earliest time (>= now) at which one more call fits. */
  nextFree(now: number, budget: RateBudget | undefined): number {
    if (!budget) return now;
    const used = this.used(now, budget);
    if (used < budget.count) return now;
    // The call that must leave the window before one more fits.
    return this.#times[this.#times.length - budget.count]! + budget.windowMs;
  }

  record(at: number): void {
    this.#times.push(at);
  }

  /** True when no call is left in the window (the lane can be forgotten). */
  empty(now: number, budget: RateBudget | undefined): boolean {
    if (!budget) return true;
    return this.used(now, budget) === 0;
  }
}

/**
 * The minimum of the last `size` samples (recent round trips), in O(size) per
 * sample. Until `trustAfter` samples are in, it answers 0: one slow first
 * sample must not pass for the platform's usual speed.
 */
export class RecentMinimum {
  readonly #samples: number[] = [];
  #next = 0;

  constructor(
    private readonly size: number,
    private readonly trustAfter = 3,
  ) {}

  /** Adds a sample and returns the minimum of the samples kept (0 while too few). */
  add(value: number): number {
    if (this.#samples.length < this.size) this.#samples.push(value);
    else this.#samples[this.#next] = value;
    this.#next = (this.#next + 1) % this.size;
    if (this.#samples.length < this.trustAfter) return 0;
    let min = Number.POSITIVE_INFINITY;
    for (const v of this.#samples) if (v < min) min = v;
    return min;
  }
}
