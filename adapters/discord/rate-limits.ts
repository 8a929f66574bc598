/**
 * Rate limits of the calls the core makes, reported instead of waited out.
 *
 * The adapter contract leaves pacing and retrying to the core's one
 * scheduler: a 429 has to reach it as a RateLimitError with the wait and its
 * scope, or the scheduler's pacing and per-chat budget would fight a queue
 * it cannot see. discord.js's REST, left to itself, sleeps out every 429 and
 * holds a request whose bucket it knows to be empty.
 *
 * What is kept of discord.js, and why: Discord asks clients to read the
 * X-RateLimit headers and not to hit limits they could have seen coming,
 * and counts 429s toward the invalid-request limit (10,000 per 10 minutes,
 * then a temporary ban): https://discord.com/developers/docs/topics/rate-limits.
 * discord.js's bucket tracking does exactly that, so it stays, but through
 * `rejectOnRateLimit` it rejects at once instead of holding the call: an
 * empty bucket (or an exhausted global budget) is reported with the time to
 * its reset before anything is sent, and a 429 Discord answers anyway is
 * reported with its Retry-After. Either way discord.js holds a reported call
 * only while the calls ahead of it in its bucket are answered (it sends one
 * at a time per bucket), never for a rate-limit wait, so the contract's call
 * deadline never has to cut such a wait short.
 *
 * Only calls made inside {@link reportingRateLimits} reject: the ones the
 * core makes and waits on (send, edit, delete, typing, uploads, opening a
 * thread). The adapter's own calls that no scheduler would retry, such as
 * registering commands at start, opening a thread for a mention, or
 * answering an interaction within Discord's 3 seconds (whose answer the
 * core hands over once and does not retry), keep discord.js's waiting, so
 * a rate limit delays them rather than losing them. The mark travels with
 * the call's async context, so it holds on your own client too and never
 * changes how your own calls behave.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RateLimitData, REST } from 'discord.js';

/** Marks the adapter's own `rejectOnRateLimit`, so joining a client twice does not wrap it twice. */
const MARK = Symbol('switchboard.discord.reportRateLimits');

/** Set while a call the core waits on runs. */
const reporting = new AsyncLocalStorage<true>();

/** Runs `call` so that a rate limit it meets rejects with discord.js's RateLimitError instead of waiting. */
export function reportingRateLimits<T>(call: () => Promise<T>): Promise<T> {
  return reporting.run(true, call);
}

/** discord.js's `rejectOnRateLimit` option as it was before the adapter joined the client. */
type RejectOption = REST['options']['rejectOnRateLimit'];

/**
 * Makes `rest` reject the rate limits of calls made inside
 * {@link reportingRateLimits}; other calls keep what the client was told
 * (its own `rejectOnRateLimit`, or discord.js's waiting). Safe to call
 * again on the same client.
 */
export function reportRateLimits(rest: REST): void {
  const options = rest.options as { rejectOnRateLimit: RejectOption };
  const previous = options.rejectOnRateLimit;
  if (typeof previous === 'function' && MARK in previous) return;
  const reject = async (data: RateLimitData): Promise<boolean> => {
    if (reporting.getStore() === true) return true;
    if (typeof previous === 'function') return previous(data);
    if (Array.isArray(previous)) return previous.some((route) => data.route.startsWith(route.toLowerCase()));
    return false;
  };
  options.rejectOnRateLimit = Object.assign(reject, { [MARK]: true });
}
