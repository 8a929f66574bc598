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
