/**
 * Time, injected. Everything in switchboard that waits or paces takes a
 * {@link Clock} through its options so tests and benchmarks can run on a
 * {@link VirtualClock} instead of sleeping.
 */

/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly __timer: unique symbol } | ReturnType<typeof setTimeout>;

/** The minimal clock the project needs: wall time in ms and one-shot timers. */
export interface Clock {
  /** Milliseconds since the epoch (or since the virtual clock's start). */
  now(): number;
  /** Calls `fn` after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock, backed by `Date.now` and the Node timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason when
 * `signal` aborts first.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface VirtualTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A deterministic clock for tests and benchmarks. Time moves only when
 * {@link VirtualClock.advance} is called; due timers fire in time order, and
 * promise callbacks queued by a timer run before the next timer fires.
 *
 * @example
 * const clock = new VirtualClock();
 * clock.setTimeout(() => console.log('tick'), 1000);
 * await clock.advance(1000); // logs "tick"
 */
export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: VirtualTimer[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: ++this.#seq, at: this.#now + Math.max(0, ms), fn };
    this.#timers.push(timer);
    return timer.id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((t) => t.id !== (handle as unknown as number));
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Time of the next due timer, or undefined when none is set. */
  nextAt(): number | undefined {
    let next: number | undefined;
    for (const t of this.#timers) if (next === undefined || t.at < next) next = t.at;
    return next;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way
   * (including timers those timers set), with microtasks flushed in between.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.#earliest();
      if (!next || next.at > target) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /**
   * Advances until `predicate` holds, stepping from timer to timer, and
   * throws when no timer is left or `limitMs` of virtual time passes first.
   */
  async advanceUntil(predicate: () => boolean, limitMs = 3_600_000): Promise<void> {
    const deadline = this.#now + limitMs;
    await flushMicrotasks();
    while (!predicate()) {
      const next = this.nextAt();
      if (next === undefined || next > deadline) {
        throw new Error(`VirtualClock.advanceUntil: condition not met by t=${this.#now}`);
      }
      await this.advance(next - this.#now);
    }
  }

  #earliest(): VirtualTimer | undefined {
    let best: VirtualTimer | undefined;
    for (const t of this.#timers)
      if (!best || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    return best;
  }
}

/** Lets every queued promise callback run (several macrotask-free rounds). */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
