/**
 * A sliding-window call budget: at most `count` calls whose start falls in
 * any `windowMs` window. The same arithmetic as the recording adapter's
 * check, so "the scheduler allows it" means "the platform accepts it".
 */
import type { RateBudget } from '../adapter-contract.js';

/**
 * Calls inside one budget's window. A platform counts a call when it
 * arrives, somewhere between its start and its answer; so a call in flight
 * counts, and a finished call counts from its answer, the latest it can have
 * arrived. Counting from starts (or from an estimate of the arrival) lets
 * calls bunched by latency arrive more densely than they left.
 */
export class BudgetWindow {
  #times: number[] = [];
  #head = 0;
  #inFlight = 0;
  /** The longest window asked about: calls older than it can hold nothing back. */
  #longestMs = 0;

  /** Drops calls that left every window asked about, as of `now`. */
  #prune(now: number, windowMs: number): void {
    if (windowMs > this.#longestMs) this.#longestMs = windowMs;
    while (this.#head < this.#times.length && this.#times[this.#head]! <= now - this.#longestMs) this.#head++;
    if (this.#head > 64 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Index of the first kept call that arrived after `since` (the times are sorted). */
  #firstAfter(since: number): number {
    let low = this.#head;
    let high = this.#times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#times[mid]! <= since) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Calls counted at `now` against `budget`: in flight, or arrived within its window. */
  used(now: number, budget: RateBudget): number {
    this.#prune(now, budget.windowMs);
    return this.#times.length - this.#firstAfter(now - budget.windowMs) + this.#inFlight;
  }

  /** Earliest time (>= now) at which one more call fits `budget`. */
  nextFree(now: number, budget: RateBudget | undefined): number {
    if (!budget) return now;
    const used = this.used(now, budget);
    if (used < budget.count) return now;
    // The finished call that must leave the window before one more fits.
    const index = this.#times.length - (budget.count - this.#inFlight);
    if (index >= this.#firstAfter(now - budget.windowMs) && index < this.#times.length)
      return this.#times[index]! + budget.windowMs;
    // Everything counted is still in flight: look again after an even share of the window.
    return now + Math.max(1, Math.ceil(budget.windowMs / budget.count));
  }

  /** Earliest time (>= now) at which one more call fits every one of `budgets`. */
  nextFreeAll(now: number, budgets: readonly RateBudget[]): number {
    let at = now;
    for (const budget of budgets) at = Math.max(at, this.nextFree(now, budget));
    return at;
  }

  /** A call started. */
  begin(): void {
    this.#inFlight++;
  }

  /** A call ended; `arrivedBy` is the latest time it can have reached the platform (its answer). */
  end(arrivedBy: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    // Kept sorted: arrival estimates of overlapping calls need not end in order.
    let i = this.#times.length;
    while (i > this.#head && this.#times[i - 1]! > arrivedBy) i--;
    this.#times.splice(i, 0, arrivedBy);
  }

  /** True when no call is counted in any of `budgets` (the lane can be forgotten). */
  empty(now: number, budgets: readonly RateBudget[]): boolean {
    if (budgets.length === 0) return this.#inFlight === 0;
    return budgets.every((budget) => this.used(now, budget) === 0);
  }
}

/** Every window a chat's calls are counted in: its pacing budget, then the others. */
export function budgetsOf(caps: { budget?: RateBudget; otherBudgets?: readonly RateBudget[] }): RateBudget[] {
  return [...(caps.budget ? [caps.budget] : []), ...(caps.otherBudgets ?? [])];
}

/**
 * The minimum of the last `size` samples (recent round trips), computed when
 * asked after a change. Until `trustAfter` samples are in, it answers 0: one slow first
 * sample must not pass for the platform's usual speed.
 */
export class RecentMinimum {
  readonly #samples: number[] = [];
  #next = 0;
  #min: number | undefined;

  constructor(
    private readonly size: number,
    private readonly trustAfter = 3,
  ) {}

  /** Adds a sample. */
  add(value: number): void {
    if (this.#samples.length < this.size) this.#samples.push(value);
    else this.#samples[this.#next] = value;
    this.#next = (this.#next + 1) % this.size;
    this.#min = undefined;
  }

  /** The minimum of the samples kept; 0 while there are too few to trust. */
  get value(): number {
    if (this.#samples.length < this.trustAfter) return 0;
    if (this.#min === undefined) {
      let min = Number.POSITIVE_INFINITY;
      for (const v of this.#samples) if (v < min) min = v;
      this.#min = min;
    }
    return this.#min;
  }
}
