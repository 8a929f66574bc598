/**
 * The one scheduler every outbound call goes through. Work is organised in
 * {@link Slot}s (one per message, per one-off operation, per typing
 * indicator); a slot is asked for its next call only when the chat's budget,
 * the adapter's budget, any `retry_after` pause and the slot's own pacing all
 * allow it, so the call always carries the newest state. The protocol runs
 * one way: the scheduler asks a slot for a {@link Call}, makes it, counts it
 * against the paces it names, and hands a failure back to the slot as the
 * action the retry table (retry.ts) gives for it. A rate limit never reaches
 * the slot: it pauses the chat (or, for a `global` {@link RateLimitError},
 * the whole adapter) and the slot simply stays queued.
 */
import type { Clock, TimerHandle } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { ChatAdapter, RateBudget } from '../adapter-contract.js';
import { BudgetWindow, budgetsOf } from './budget.js';
import { PaceBook, type PaceKey } from './pace.js';
import { type CallKind, type FailureAction, failureAction } from './retry.js';

/** When each message or stream last had a call counted; what a slot's pacing reads. */
export interface PaceView {
  last(key: PaceKey): number | undefined;
}

/** One platform call, built by a slot from its newest state. */
export interface Call {
  readonly kind: CallKind;
  /** This call's attempt for its target: 1 + its failures since the last success. */
  readonly attempt: number;
  /** The call carries plain text (a formatting rejection cannot be helped by resending plain). */
  readonly plain: boolean;
  /** The message or stream the call changes: paced from its last call, counted when this one arrives. */
  readonly paces?: PaceKey;
  /**
   * Makes the call and records its success in the slot. Resolves with the
   * message the call created (a send, a finished stream), or the native
   * stream it opened where the platform paces the opening, whose pace starts
   * with this call.
   */
  run(): Promise<PaceKey | undefined>;
}

/** A source of calls for one chat. */
export interface Slot {
  readonly chat: string;
  /** Typing yields to text: it only runs when no text slot of the chat is waiting. */
  readonly kind: 'text' | 'typing';
  /** Earliest time this slot's own rules allow a call (message pace, backoff); Infinity when blocked. */
  readyAt(now: number, pace: PaceView): number;
  /**
   * The call to make now, built from the newest state; undefined when nothing
   * is left to do now (the slot leaves the queue until it is woken again).
   */
  next(): Call | undefined;
  /**
   * The call failed; `action` is what the retry table says to do (never a
   * rate limit: the scheduler handles those). `give-up` also comes when the
   * call could not even be built.
   */
  failed(action: Exclude<FailureAction, { kind: 'pause' }>, err: unknown, call: Call | undefined): void;
  /**
   * The next call creates a message (send, stream start or finish). New
   * messages of one chat are created one at a time, in queue order, so they
   * appear in the order they were asked for.
   */
  creates?(): boolean;
  /**
   * Only cosmetic work is left (a permanent message whose text is already
   * visible): in a chat with a budget it waits until no other text of the
   * chat is queued, so it never delays new text.
   */
  deferrable?(): boolean;
  /**
   * The next call reaches no platform limit (opening a native stream where
   * the platform sees nothing until its first update), so budgets do not count it.
   */
  unbudgeted?(): boolean;
}

interface AdapterState {
  adapter: ChatAdapter;
  window: BudgetWindow;
  pausedUntil: number;
}

interface Lane {
  chat: string;
  adapter: AdapterState;
  queue: Slot[];
  inFlight: Set<Slot>;
  /** In-flight calls that create a message. */
  creating: Set<Slot>;
  window: BudgetWindow;
  pausedUntil: number;
  timer: TimerHandle | undefined;
  timerAt: number;
  /** Set while a pump runs; a nested wake asks for one more round instead of re-entering. */
  pumping: boolean;
  again: boolean;
}

/** Paces and dispatches every call of every adapter. */
export class Scheduler {
  readonly clock: Clock;
  readonly #logger: Logger;
  readonly #adapters = new Map<string, AdapterState>();
  readonly #lanes = new Map<string, Lane>();
  readonly #pace: PaceBook;
  #activeText = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(adapters: Map<string, ChatAdapter>, clock: Clock, logger: Logger) {
    this.clock = clock;
    this.#logger = logger;
    this.#pace = new PaceBook(clock);
    for (const [platform, adapter] of adapters) {
      this.#adapters.set(platform, { adapter, window: new BudgetWindow(), pausedUntil: 0 });
    }
  }

  /** Counts a call on a paced key; once per horizon, forgets lanes of chats that went quiet. */
  #count(key: PaceKey, at: number): void {
    if (!this.#pace.mark(key, at)) return;
    // Their budget windows are long past: nothing in them can hold a call back.
    const now = this.clock.now();
    for (const [chat, lane] of this.#lanes) {
      const quiet = lane.queue.length === 0 && lane.inFlight.size === 0 && lane.timer === undefined;
      if (quiet && lane.pausedUntil <= now && lane.window.empty(now, this.#budgets(lane)))
        this.#lanes.delete(chat);
    }
  }

  /**
   * Queues `slot` (no-op when queued already) and runs what may run now.
   * `lazy`: the slot only has newer content of the same kind (a delta), so a
   * slot already waiting on its timer or in flight needs no new pass.
   */
  wake(slot: Slot, adapter: ChatAdapter, lazy = false): void {
    const lane = this.#lane(slot.chat, adapter);
    if (!lane.queue.includes(slot)) {
      lane.queue.push(slot);
      if (slot.kind === 'text') this.#activeText++;
    } else if (lazy && (lane.inFlight.has(slot) || lane.timer !== undefined)) return;
    this.#pump(lane);
  }

  /** Takes `slot` out of its queue (typing stopped). An in-flight call still completes. */
  remove(slot: Slot): void {
    const lane = this.#lanes.get(slot.chat);
    if (!lane) return;
    const i = lane.queue.indexOf(slot);
    if (i >= 0) this.#dequeue(lane, i);
    this.#pump(lane);
  }

  /** Resolves when no text slot is queued or in flight. */
  idle(): Promise<void> {
    if (this.#activeText === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #lane(chat: string, adapter: ChatAdapter): Lane {
    let lane = this.#lanes.get(chat);
    if (!lane) {
      let state = this.#adapters.get(adapter.platform);
      if (!state) {
        state = { adapter, window: new BudgetWindow(), pausedUntil: 0 };
        this.#adapters.set(adapter.platform, state);
      }
      lane = {
        chat,
        adapter: state,
        queue: [],
        inFlight: new Set(),
        creating: new Set(),
        window: new BudgetWindow(),
        pausedUntil: 0,
        timer: undefined,
        timerAt: Number.POSITIVE_INFINITY,
        pumping: false,
        again: false,
      };
      this.#lanes.set(chat, lane);
    }
    return lane;
  }

  #dequeue(lane: Lane, index: number): void {
    const [slot] = lane.queue.splice(index, 1);
    if (slot?.kind === 'text') {
      this.#activeText--;
      if (this.#activeText === 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  /** Every window the chat's calls count in: its budget first, then the others. */
  #budgets(lane: Lane): RateBudget[] {
    return budgetsOf(lane.adapter.adapter.capabilities(lane.chat));
  }

  #pump(lane: Lane): void {
    if (lane.pumping) {
      lane.again = true;
      return;
    }
    lane.pumping = true;
    try {
      do {
        lane.again = false;
        this.#pumpOnce(lane);
      } while (lane.again);
    } finally {
      lane.pumping = false;
    }
  }

  #pumpOnce(lane: Lane): void {
    const now = this.clock.now();
    // Asked once per pass: capabilities() builds its answer anew on some platforms.
    const caps = lane.adapter.adapter.capabilities(lane.chat);
    const chatBudget = caps.budget;
    const chatBudgets = budgetsOf(caps);
    const globalBudget = lane.adapter.adapter.globalBudget;
    let earliest = Number.POSITIVE_INFINITY;
    const textWaiting = lane.queue.some((s) => s.kind === 'text' && !lane.inFlight.has(s));
    // Once one creation has to wait, later ones wait too (message order).
    let createHeld = lane.creating.size > 0;
    const urgent = chatBudget !== undefined && lane.queue.some((s) => s.kind === 'text' && !s.deferrable?.());
    for (let i = 0; i < lane.queue.length; i++) {
      const slot = lane.queue[i]!;
      if (lane.inFlight.has(slot)) continue;
      if (slot.kind === 'typing' && textWaiting) continue;
      const creates = slot.creates?.() === true;
      if (creates && createHeld) continue;
      if (urgent && slot.deferrable?.()) continue;
      const free = slot.unbudgeted?.() === true;
      let at = Math.max(slot.readyAt(now, this.#pace), lane.pausedUntil, lane.adapter.pausedUntil);
      if (!free) {
        at = Math.max(
          at,
          lane.window.nextFreeAll(now, chatBudgets),
          lane.adapter.window.nextFree(now, globalBudget),
        );
      }
      if (slot.kind === 'typing' && chatBudget && chatBudget.count >= 4) {
        // Keep one call of the chat's budget free for text.
        if (lane.window.used(now, chatBudget) >= chatBudget.count - 1) {
          at = Math.max(at, lane.window.nextFree(now, { ...chatBudget, count: chatBudget.count - 1 }));
        }
      }
      if (at > now) {
        earliest = Math.min(earliest, at);
        // A slot blocked behind another slot of its own (Infinity) holds nobody up.
        if (creates && at !== Number.POSITIVE_INFINITY) createHeld = true;
        continue;
      }
      let call: ReturnType<Slot['next']>;
      try {
        call = slot.next();
      } catch (err) {
        // Building the call failed (a renderer bug): the slot backs off like after a failed call.
        this.#logger.error({ err, chat: lane.chat }, 'outbox could not prepare a call');
        slot.failed({ kind: 'give-up' }, err, undefined);
        continue;
      }
      if (!call) {
        this.#dequeue(lane, i);
        i--;
        // Slots passed over for this one (deferred work) get another look.
        if (urgent) lane.again = true;
        continue;
      }
      if (!free) {
        lane.window.begin();
        lane.adapter.window.begin();
      }
      lane.inFlight.add(slot);
      if (creates) {
        lane.creating.add(slot);
        createHeld = true;
      }
      this.#run(lane, slot, call, !free);
    }
    this.#arm(lane, earliest);
    if (lane.queue.length === 0 && lane.inFlight.size === 0 && lane.timer === undefined) {
      if (lane.window.empty(now, chatBudgets) && lane.pausedUntil <= now) this.#lanes.delete(lane.chat);
    }
  }

  #run(lane: Lane, slot: Slot, call: Call, budgeted: boolean): void {
    const startedAt = this.clock.now();
    const platform = lane.adapter.adapter.platform;
    if (call.paces) this.#count(call.paces, startedAt);
    let promise: Promise<PaceKey | undefined>;
    try {
      promise = call.run();
    } catch (err) {
      promise = Promise.reject(err);
    }
    promise
      .then(
        (created) => {
          const arrivedBy = this.#pace.arrivedBy(platform, startedAt);
          if (call.paces) this.#count(call.paces, arrivedBy);
          if (created) this.#count(created, arrivedBy);
        },
        (err: unknown) => {
          if (call.paces) this.#count(call.paces, this.#pace.arrivedBy(platform, startedAt));
          const action = failureAction(err, call);
          if (action.kind === 'pause') {
            const until = this.clock.now() + action.ms;
            if (action.scope === 'global') {
              lane.adapter.pausedUntil = Math.max(lane.adapter.pausedUntil, until);
            } else lane.pausedUntil = Math.max(lane.pausedUntil, until);
            this.#logger.debug(
              { chat: lane.chat, retryAfterMs: action.ms, scope: action.scope },
              'rate limited',
            );
            return;
          }
          try {
            slot.failed(action, err, call);
          } catch (inner) {
            this.#logger.error({ err: inner, chat: lane.chat }, 'outbox slot failure handler failed');
          }
        },
      )
      .finally(() => {
        if (budgeted) {
          // A budget counts the call until a window after its answer, never from an estimate of
          // its arrival: a call held up on its way (a stalled process, a buffered socket) reaches
          // the platform later than the estimate says, beside calls sent after it, and the
          // platform's window would then hold more than the budget. The answer is the latest the
          // call can have arrived, so the platform's count never exceeds ours.
          const answeredAt = this.clock.now();
          lane.window.end(answeredAt);
          lane.adapter.window.end(answeredAt);
        }
        this.#pace.noteRoundTrip(platform, startedAt);
        lane.inFlight.delete(slot);
        lane.creating.delete(slot);
        this.#pump(lane);
      });
  }

  #arm(lane: Lane, at: number): void {
    if (at === lane.timerAt && lane.timer !== undefined) return;
    if (lane.timer !== undefined) {
      this.clock.clearTimeout(lane.timer);
      lane.timer = undefined;
      lane.timerAt = Number.POSITIVE_INFINITY;
    }
    if (at === Number.POSITIVE_INFINITY) return;
    lane.timerAt = at;
    lane.timer = this.clock.setTimeout(() => {
      lane.timer = undefined;
      lane.timerAt = Number.POSITIVE_INFINITY;
      this.#pump(lane);
    }, at - this.clock.now());
  }
}
