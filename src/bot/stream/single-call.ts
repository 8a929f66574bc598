/**
 * A scheduler slot that makes one platform call until it succeeds or the
 * retry table gives up on it (a delete, an upload): it backs off as the
 * table says, and settles `done` once, with the call's result or the last
 * failure.
 */
import { SwitchboardError } from '../../errors.js';
import type { ChatAdapter } from '../adapter-contract.js';
import type { OutboxContext } from './context.js';
import type { PaceKey } from './pace.js';
import type { CallKind, FailureAction } from './retry.js';
import type { Call, Slot } from './scheduler.js';

/** A failure the scheduler hands a slot (never a pause). */
export type SlotFailure = Exclude<FailureAction, { kind: 'pause' }>;

/** One call, retried; subclasses say what it is and what giving up means. */
export abstract class SingleCallJob<T> implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  readonly done: Promise<T>;
  protected readonly ctx: OutboxContext;
  protected readonly adapter: ChatAdapter;
  #resolve!: (value: T) => void;
  #reject!: (err: unknown) => void;
  #finished = false;
  #attempts = 0;
  #notBefore = 0;

  constructor(ctx: OutboxContext, chat: string) {
    this.ctx = ctx;
    this.chat = chat;
    this.adapter = ctx.adapterFor(chat);
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The call this job makes. */
  protected abstract readonly callKind: CallKind;

  /** Makes the call; resolves with the job's result and the message it created, if any. */
  protected abstract call(): Promise<{ value: T; created?: PaceKey }>;

  /**
   * The table gave up (or the target is `gone`): a value that still counts
   * as done (a message already deleted), or undefined to reject `done` with
   * the failure.
   */
  protected abstract givenUp(action: SlotFailure, err: unknown): { value: T } | undefined;

  /** True until the job has settled. */
  protected get pending(): boolean {
    return !this.#finished;
  }

  readyAt(): number {
    return this.#notBefore;
  }

  next(): Call | undefined {
    if (this.#finished) return undefined;
    return {
      kind: this.callKind,
      attempt: this.#attempts + 1,
      // Nothing here is formatted text: a formatting refusal cannot be helped by resending it plain.
      plain: true,
      run: async () => {
        const { value, created } = await this.call();
        this.#finished = true;
        this.#resolve(value);
        return created;
      },
    };
  }

  failed(action: SlotFailure, err: unknown): void {
    this.#attempts++;
    if (action.kind === 'retry' || action.kind === 'relayout') {
      this.#notBefore = this.ctx.clock.now() + action.delayMs;
      return;
    }
    this.#finished = true;
    const kept = this.givenUp(action, err);
    if (kept) this.#resolve(kept.value);
    else this.#reject(err instanceof Error ? err : new SwitchboardError('PLATFORM_ERROR', String(err)));
  }
}
