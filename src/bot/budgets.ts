/**
 * Spending caps in dollars at the configured prices: per person per UTC day,
 * per chat per UTC day (an admin may store a chat's own), and for the whole
 * bot per calendar month (UTC). What a turn spends is read from its
 * session's usage ledger and added to the controls store's counters before
 * every model request and when the turn ends, so every replica and every
 * restart sees the same totals. A reached cap can be extended once per
 * period by its own amount, by an admin pressing `Allow $5.00 more`; the
 * offer behind that button is stored, so it works after a restart and on
 * any replica.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ControlsStore } from '../store/controls.js';
import type { AccessPolicy } from './access.js';
import type { Button } from './adapter-contract.js';
import { encodeButton, shortId } from './buttons.js';
import { say } from './text.js';

/** The configured caps in US dollars; an absent one is no cap. */
export interface BudgetCaps {
  /** Per person (a linked person counts once) per UTC day. */
  userDay?: number | undefined;
  /** Per chat per UTC day; `/budget chat <amount>` stores a chat's own. */
  chatDay?: number | undefined;
  /** The whole bot per calendar month, UTC. */
  month?: number | undefined;
}

/** Which cap. */
export type CapKind = 'user-day' | 'chat-day' | 'month';

/** One cap as it stands now. */
export interface CapStatus {
  kind: CapKind;
  /** Whose: an owner key, a chat key, or `bot`. */
  scope: string;
  /** `2026-12-02` for a day, `2026-12` for a month. */
  period: string;
  /** The cap's own amount; undefined when this spending is not capped. */
  cap: number | undefined;
  /** Added by an admin's extension this period. */
  extra: number;
  spent: number;
  /** When the period ends (ms). */
  resetsAt: number;
}

/** A stored `Allow $X more` offer: which cap and period it extends. */
interface Offer {
  kind: CapKind;
  scope: string;
  period: string;
  amount: number;
  chat: string;
  /** The notice the button sits on, to show with the outcome. */
  text: string;
}

/** Options of {@link Budgets}. */
export interface BudgetOptions {
  caps: BudgetCaps;
  store: ControlsStore;
  access: AccessPolicy;
  clock: Clock;
  logger: Logger;
}

/** Share of a cap at which the warning line is said (once per cap and period). */
export const WARN_SHARE = 0.8;

const DAY_MS = 86_400_000;

/** `$4.01`: budgets are said in cents, whatever the amount. */
export const dollars = (usd: number) => `$${usd.toFixed(2)}`;

/** The key a cap's counters and flags are kept under. */
const capKey = (c: Pick<CapStatus, 'kind' | 'scope' | 'period'>) => `${c.kind}:${c.scope}:${c.period}`;

/** The spend counter a cap reads. */
const spentKey = (kind: CapKind, scope: string, period: string) =>
  kind === 'month'
    ? `spent:bot:${period}`
    : `spent:${kind === 'user-day' ? 'user' : 'chat'}:${scope}:${period}`;

/** The caps, the spend behind them, and their one-time extensions. */
export class Budgets {
  readonly #o: BudgetOptions;
  /** Turns paused on a cap in this process, by cap key: called when it is extended. */
  readonly #waiting = new Map<string, Set<() => void>>();
  /** Offer ids whose turn waits here (a press must reach this replica). */
  readonly #offersWaited = new Set<string>();

  constructor(options: BudgetOptions) {
    this.#o = options;
  }

  /** Adds `usd` that `user` spent in `chat` to their day, the chat's day and the bot's month. */
  async record(chat: string, user: string, usd: number): Promise<void> {
    if (!(usd > 0)) return;
    const { day, month } = this.#periods();
    await this.#o.store.add({
      [spentKey('user-day', this.#o.access.ownerKey(user), day)]: usd,
      [spentKey('chat-day', chat, day)]: usd,
      [spentKey('month', 'bot', month)]: usd,
    });
  }

  /** Every cap that applies to `user` in `chat`, capped or not, with what is spent. */
  async status(chat: string, user: string): Promise<CapStatus[]> {
    const { day, month, dayEnd, monthEnd } = this.#periods();
    const chatCap = await this.chatCap(chat);
    const base: Array<Omit<CapStatus, 'extra' | 'spent'>> = [
      {
        kind: 'user-day',
        scope: this.#o.access.ownerKey(user),
        period: day,
        cap: this.#o.caps.userDay,
        resetsAt: dayEnd,
      },
      { kind: 'chat-day', scope: chat, period: day, cap: chatCap ?? this.#o.caps.chatDay, resetsAt: dayEnd },
      { kind: 'month', scope: 'bot', period: month, cap: this.#o.caps.month, resetsAt: monthEnd },
    ];
    const keys = base.flatMap((c) => [spentKey(c.kind, c.scope, c.period), `extra:${capKey(c)}`]);
    const values = await this.#o.store.read(keys);
    return base.map((c) => ({
      ...c,
      spent: values[spentKey(c.kind, c.scope, c.period)] ?? 0,
      extra: values[`extra:${capKey(c)}`] ?? 0,
    }));
  }

  /** The first cap `user` has reached in `chat`, or undefined when they may go on. */
  async reached(chat: string, user: string): Promise<CapStatus | undefined> {
    return (await this.status(chat, user)).find((c) => c.cap !== undefined && c.spent >= c.cap + c.extra);
  }

  /** The warning lines due now: each cap at or past 80% whose line was not said this period. */
  async warnings(chat: string, user: string): Promise<string[]> {
    const lines: string[] = [];
    for (const c of await this.status(chat, user)) {
      if (c.cap === undefined) continue;
      const limit = c.cap + c.extra;
      if (c.spent < WARN_SHARE * limit || c.spent >= limit) continue;
      if (await this.#o.store.claim(`warned:${capKey(c)}`))
        lines.push(say.budgetWarning(c.kind, dollars(c.spent), dollars(limit)));
    }
    return lines;
  }

  /** A chat's own daily cap set by an admin, if any. */
  async chatCap(chat: string): Promise<number | undefined> {
    const value = await this.#o.store.getSetting(`chat-cap:${chat}`);
    return typeof value === 'number' ? value : undefined;
  }

  /** Stores a chat's own daily cap; undefined goes back to `SWITCHBOARD_BUDGET_CHAT_DAY`. */
  setChatCap(chat: string, usd: number | undefined): Promise<void> {
    return this.#o.store.setSetting(`chat-cap:${chat}`, usd);
  }

  /**
   * What to say about a reached cap, with the `Allow $X more` button while
   * it can still be extended this period. `paused`: a running reply stopped
   * on it (and goes on when it is extended).
   */
  async notice(
    chat: string,
    cap: CapStatus,
    paused: boolean,
  ): Promise<{ text: string; buttons: Button[][]; offerId?: string }> {
    const amount = cap.cap ?? 0;
    const extended = cap.extra > 0;
    const text = say.budgetReached(
      cap.kind,
      dollars(amount + cap.extra),
      dollars(cap.spent),
      new Date(cap.resetsAt).toISOString().slice(0, 16).replace('T', ' '),
      paused,
      extended ? undefined : dollars(amount),
    );
    if (extended) return { text, buttons: [] };
    const id = shortId();
    const offer: Offer = { kind: cap.kind, scope: cap.scope, period: cap.period, amount, chat, text };
    await this.#o.store.setSetting(`offer:${id}`, offer);
    if (paused) this.#offersWaited.add(id);
    return {
      text,
      offerId: id,
      buttons: [
        [{ label: `Allow ${dollars(amount)} more`, payload: encodeButton('extend', id), style: 'primary' }],
      ],
    };
  }

  /** True while a turn in this process waits on the offer with this id. */
  has(id: string): boolean {
    return this.#offersWaited.has(id);
  }

  /**
   * An admin's press of `Allow $X more`: extends the cap by its own amount,
   * once for the period, and wakes the turns paused on it here. Returns the
   * answer for the presser and, when granted, the line to add to the notice.
   */
  async extend(
    id: string,
    presser: string,
    presserName: string,
  ): Promise<{ answer: string; edited?: string }> {
    const offer = parseOffer(await this.#o.store.getSetting(`offer:${id}`));
    if (!offer) return { answer: say.expired };
    if (!this.#o.access.isAdmin(presser)) return { answer: say.budgetAdminOnly };
    const { day, month } = this.#periods();
    if (offer.period !== (offer.kind === 'month' ? month : day)) return { answer: say.budgetAlreadyReset };
    const key = capKey(offer);
    if (!(await this.#o.store.claim(`extended:${key}`))) return { answer: say.budgetAlreadyExtended };
    await this.#o.store.add({ [`extra:${key}`]: offer.amount });
    this.#o.logger.info({ chat: offer.chat, cap: offer.kind, amount: offer.amount }, 'budget extended');
    for (const wake of this.#waiting.get(key) ?? []) wake();
    return {
      answer: say.budgetExtendedAnswer(dollars(offer.amount)),
      edited: `${offer.text}\n\n${say.budgetExtended(dollars(offer.amount), presserName)}`,
    };
  }

  /**
   * Resolves when `cap` is extended in this process or `signal` aborts;
   * `timeoutMs` later it resolves false. The id of the notice's offer is
   * forgotten then.
   */
  waitForExtension(
    cap: CapStatus,
    offerId: string | undefined,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const key = capKey(cap);
    return new Promise<boolean>((resolve) => {
      const waiters = this.#waiting.get(key) ?? new Set<() => void>();
      this.#waiting.set(key, waiters);
      const done = (extended: boolean) => {
        waiters.delete(wake);
        if (waiters.size === 0) this.#waiting.delete(key);
        if (offerId) this.#offersWaited.delete(offerId);
        this.#o.clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(extended);
      };
      const wake = () => done(true);
      const onAbort = () => done(false);
      const timer = this.#o.clock.setTimeout(() => done(false), timeoutMs);
      waiters.add(wake);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Today, this month, and when each ends (UTC). */
  #periods(): { day: string; month: string; dayEnd: number; monthEnd: number } {
    const now = this.#o.clock.now();
    const iso = new Date(now).toISOString();
    const date = new Date(now);
    return {
      day: iso.slice(0, 10),
      month: iso.slice(0, 7),
      dayEnd: Math.floor(now / DAY_MS) * DAY_MS + DAY_MS,
      monthEnd: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
    };
  }
}

function parseOffer(value: unknown): Offer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const o = value as Partial<Offer>;
  const kinds: readonly unknown[] = ['user-day', 'chat-day', 'month'];
  if (!kinds.includes(o.kind) || typeof o.scope !== 'string' || typeof o.period !== 'string')
    return undefined;
  if (typeof o.amount !== 'number' || typeof o.chat !== 'string' || typeof o.text !== 'string')
    return undefined;
  return o as Offer;
}
