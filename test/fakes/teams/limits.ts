/**
 * The documented limits the fake Bot Connector enforces, each with the page
 * it comes from, and the sliding-window counter behind the rate limits.
 * Every number can be overridden per test (`startFakeTeams({ limits })`);
 * the defaults are the documented ones.
 */

/** One rate window: at most `max` operations in any `windowMs`. */
export interface RateWindow {
  windowMs: number;
  max: number;
}

/** The limits of one fake. */
export interface FakeTeamsLimits {
  /**
   * Per bot per thread (one conversation): "Send to conversation" allows 7
   * operations per 1 s, 8 per 2 s, 60 per 30 s and 1800 per 3600 s; every
   * request counts ("including sending messages, channel enumerations, and
   * roster fetches"). Over it the API answers 429.
   * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/rate-limit
   */
  perThread: RateWindow[];
  /** "The global limit per app per tenant is 50 Requests Per Second (RPS)" (same page). */
  perApp: RateWindow[];
  /**
   * "The bot message size limit is 100 KB ... the message itself ... encoded
   * as UTF-16 ... doesn't include base64 encoded image"; over it the bot
   * gets 413 RequestEntityTooLarge with the error code MessageSizeTooBig.
   * The page recommends keeping a message within 80 KB.
   * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/format-your-bot-messages
   */
  maxMessageBytes: number;
  /**
   * "Informative messages must not be more than 1 kb or 1000 characters."
   * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/streaming-ux
   */
  maxInformativeChars: number;
  /**
   * Streaming is throttled to one request per second per stream; faster
   * updates are refused with 403 ContentStreamNotAllowed (the streaming-ux
   * page's error table; the SDK report microsoft/teams.py#452 shows the 403
   * for bursts faster than 1 request/second).
   */
  streamMinIntervalMs: number;
  /** "Content stream finished due to exceeded streaming time." after two minutes (streaming-ux error table). */
  streamMaxDurationMs: number;
  /** How long a bot may take to answer an invoke before Teams shows the user an error. */
  invokeDeadlineMs: number;
  /** Lifetime of the connector's inbound JWTs and of the bot's access tokens. */
  tokenLifetimeSec: number;
}

/** The documented numbers (see each field). */
export const DEFAULT_LIMITS: FakeTeamsLimits = {
  perThread: [
    { windowMs: 1_000, max: 7 },
    { windowMs: 2_000, max: 8 },
    { windowMs: 30_000, max: 60 },
    { windowMs: 3_600_000, max: 1_800 },
  ],
  perApp: [{ windowMs: 1_000, max: 50 }],
  maxMessageBytes: 100 * 1024,
  maxInformativeChars: 1_000,
  streamMinIntervalMs: 1_000,
  streamMaxDurationMs: 120_000,
  // "Your app has five seconds to respond to the invoke" (after which the
  // Teams client retries and then shows an error), documented for
  // message-extension submits; the fake applies it to every invoke.
  // https://learn.microsoft.com/en-us/microsoftteams/platform/messaging-extensions/how-to/action-commands/respond-to-task-module-submit
  invokeDeadlineMs: 5_000,
  tokenLifetimeSec: 3_600,
};

/** Sliding-window counters keyed by thread (or by app). */
export class RateCounter {
  readonly #hits = new Map<string, number[]>();
  readonly #windows: RateWindow[];
  readonly #longest: number;

  constructor(windows: RateWindow[]) {
    this.#windows = windows;
    this.#longest = Math.max(0, ...windows.map((w) => w.windowMs));
  }

  /**
   * Counts one operation on `key` at `now` if every window has room;
   * otherwise counts nothing and says after how many milliseconds the
   * fullest window frees a slot.
   */
  take(key: string, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    const hits = (this.#hits.get(key) ?? []).filter((t) => t > now - this.#longest);
    let retryAfterMs = 0;
    for (const w of this.#windows) {
      const inWindow = hits.filter((t) => t > now - w.windowMs);
      if (inWindow.length >= w.max) {
        const oldest = inWindow[inWindow.length - w.max] ?? now;
        retryAfterMs = Math.max(retryAfterMs, oldest + w.windowMs - now);
      }
    }
    if (retryAfterMs > 0) {
      this.#hits.set(key, hits);
      return { ok: false, retryAfterMs };
    }
    hits.push(now);
    this.#hits.set(key, hits);
    return { ok: true };
  }
}

/**
 * A message's size as the size rule counts it: the JSON as UTF-16 (two bytes
 * per code unit), without base64 `data:` images.
 */
export function messageBytes(activity: unknown): number {
  const json = JSON.stringify(activity) ?? '';
  const withoutImages = json.replace(/data:image\/[a-z+.-]+;base64,[A-Za-z0-9+/=]+/g, '');
  return withoutImages.length * 2;
}
