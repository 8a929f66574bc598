/**
 * A deadline for one platform call. The outbox makes one call at a time per
 * message and waits for its answer, so a call whose answer never comes (a
 * lost response on a connection that stays open, an SDK sleeping out a long
 * rate limit) would freeze that message for good. Every call the adapters
 * make for the outbox goes through {@link withDeadline}: it ends with the
 * answer or, at the deadline, with `PLATFORM_TIMEOUT`, and the outbox's
 * retry table decides what follows (another attempt, or the text sent anew).
 */
import { type Clock, systemClock } from './clock.js';
import { SwitchboardError } from './errors.js';

/** How long an adapter waits for one outbox call by default: a healthy platform answers in about a second. */
export const DEFAULT_CALL_TIMEOUT_MS = 15_000;

/** Options for {@link withDeadline}. */
export interface DeadlineOptions {
  /** Longest the call may take, answer included. */
  timeoutMs: number;
  /** What the call does, for the error message: `Discord edit a message`. */
  what: string;
  clock?: Clock;
}

/**
 * Runs `call` with a signal that aborts at the deadline, so an SDK that
 * honours it never sends the request after that, and settles by the
 * deadline whether or not the SDK honours it. Rejects with
 * `PLATFORM_TIMEOUT` (detail: `timeoutMs`) when the time is up; otherwise
 * settles as `call` does.
 */
export function withDeadline<T>(
  call: (signal: AbortSignal) => Promise<T>,
  options: DeadlineOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      const seconds = Math.round(options.timeoutMs / 100) / 10;
      const err = new SwitchboardError(
        'PLATFORM_TIMEOUT',
        `${options.what}: no answer within ${seconds} s. The call is given up and retried; if this keeps happening, check the network to the platform (or its proxy).`,
        { detail: { timeoutMs: options.timeoutMs } },
      );
      controller.abort(err);
      reject(err);
    }, options.timeoutMs);
    let running: Promise<T>;
    try {
      running = call(controller.signal);
    } catch (err) {
      running = Promise.reject(err);
    }
    running.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clock.clearTimeout(timer);
        // After the deadline the promise is settled already; the SDK's own abort error adds nothing.
        reject(err);
      },
    );
  });
}
