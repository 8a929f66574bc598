/**
 * Rate limits and fault injection for the fake Bot API. Limits are sliding
 * windows over the fake's wall clock; faults are rules matched per call, with
 * a seeded random source so a run is repeatable.
 */

/** At most `count` calls in any `windowMs`. */
export interface FakeRateLimit {
  count: number;
  windowMs: number;
  /**
   * Arrival jitter forgiven, in ms (default 20): the client paces by when it
   * sent, the server counts when requests arrived, so a client keeping the
   * limit exactly must not be refused for a few ms of network variance.
   */
  toleranceMs?: number;
}

/** A sliding-window counter keyed by chat (or one key for the global limit). */
export class SlidingWindow {
  readonly #hits = new Map<string, number[]>();

  constructor(readonly limit: FakeRateLimit) {}

  /** Records a call at `now` if allowed; otherwise returns ms until a slot frees. */
  take(key: string, now: number): { ok: true } | { ok: false; waitMs: number } {
    const start = now - this.limit.windowMs + (this.limit.toleranceMs ?? 20);
    const hits = (this.#hits.get(key) ?? []).filter((t) => t > start);
    if (hits.length >= this.limit.count) {
      this.#hits.set(key, hits);
      return { ok: false, waitMs: (hits[0] as number) - start };
    }
    hits.push(now);
    this.#hits.set(key, hits);
    return { ok: true };
  }
}

/** Methods that count against the flood limits. */
const FLOOD_METHODS = new Set([
  'sendMessage',
  'sendRichMessage',
  'editMessageText',
  'sendMessageDraft',
  'sendRichMessageDraft',
]);

/** The fake's flood limits; all configurable so tests can scale them. */
export interface FloodLimits {
  private: FakeRateLimit;
  perMessage: FakeRateLimit;
  group: FakeRateLimit;
  global: FakeRateLimit;
}

/**
 * Telegram's flood control as the fake models it: one message edited (or one
 * draft updated) about once per second, short bursts in a private chat, 20
 * calls per minute in a group, 30 per second for the whole bot.
 */
export class FloodControl {
  readonly #perMessage: SlidingWindow;
  readonly #private: SlidingWindow;
  readonly #group: SlidingWindow;
  readonly #global: SlidingWindow;

  constructor(limits: FloodLimits) {
    this.#perMessage = new SlidingWindow(limits.perMessage);
    this.#private = new SlidingWindow(limits.private);
    this.#group = new SlidingWindow(limits.group);
    this.#global = new SlidingWindow(limits.global);
  }

  /** True when the call may go through (and is counted). */
  allow(method: string, params: Record<string, unknown>, now: number): boolean {
    if (!FLOOD_METHODS.has(method)) return true;
    const chatId = Number(params.chat_id);
    const target =
      method === 'editMessageText'
        ? `${chatId}/m${params.message_id}`
        : /Draft$/.test(method)
          ? `${chatId}/d${params.draft_id}`
          : undefined;
    if (target !== undefined && !this.#perMessage.take(target, now).ok) return false;
    if (!(chatId > 0 ? this.#private : this.#group).take(String(chatId), now).ok) return false;
    return this.#global.take('all', now).ok;
  }
}

/** What a matching fault does to a call. */
export type FaultKind =
  | { kind: 'rate-limit'; retryAfter?: number }
  | { kind: 'server-error'; status?: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'drop' }
  /** A lost answer: the request is taken and never answered, the connection left open until the client gives up or the fake closes (what a half-open connection or a stuck proxy looks like to a client). */
  | { kind: 'hang' }
  | { kind: 'error'; code: number; description: string };

/** A fault rule: which calls, how many of them, and what happens. */
export type FaultRule = FaultKind & {
  /** Method name or pattern; all methods when absent. */
  method?: string | RegExp;
  /** Share of matching calls hit (0..1); default 1. */
  share?: number;
  /** Stop after this many hits; unlimited when absent. */
  times?: number;
};

/** mulberry32: small, seeded, good enough to pick which calls fail. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Holds the active fault rules and picks the one (if any) for a call. */
export class FaultInjector {
  #rules: { rule: FaultRule; hits: number }[] = [];
  readonly #random: () => number;

  constructor(seed = 1) {
    this.#random = seededRandom(seed);
  }

  add(rule: FaultRule): void {
    this.#rules.push({ rule, hits: 0 });
  }

  clear(): void {
    this.#rules = [];
  }

  pick(method: string): FaultKind | undefined {
    for (const entry of this.#rules) {
      const { rule } = entry;
      if (rule.times !== undefined && entry.hits >= rule.times) continue;
      if (rule.method !== undefined) {
        const matches = typeof rule.method === 'string' ? rule.method === method : rule.method.test(method);
        if (!matches) continue;
      }
      if (rule.share !== undefined && this.#random() >= rule.share) continue;
      entry.hits++;
      return rule;
    }
    return undefined;
  }
}
