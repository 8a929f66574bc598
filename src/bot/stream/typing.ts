/**
 * The typing indicator of one chat: re-sent every `typingIntervalMs` (a
 * little before it fades) while active, only when the chat's budget has
 * room and no text is waiting.
 */
import type { ChatAdapter } from '../adapter-contract.js';
import type { OutboxContext } from './context.js';
import type { Call, Slot } from './scheduler.js';

/** Re-send a little before the platform's indicator fades. */
const REFRESH_FACTOR = 0.9;

/** A typing indicator as a scheduler slot. */
export class TypingSlot implements Slot {
  readonly kind = 'typing' as const;
  readonly chat: string;
  active = true;
  #lastSent: number | undefined;
  #notBefore = 0;
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;

  constructor(ctx: OutboxContext, chat: string) {
    this.#ctx = ctx;
    this.chat = chat;
    this.#adapter = ctx.adapterFor(chat);
  }

  readyAt(now: number): number {
    const interval = this.#ctx.capabilities(this.chat).typingIntervalMs * REFRESH_FACTOR;
    const due = this.#lastSent === undefined ? now : this.#lastSent + interval;
    return Math.max(due, this.#notBefore);
  }

  next(): Call | undefined {
    if (!this.active || this.#ctx.capabilities(this.chat).typingIntervalMs <= 0) return undefined;
    return {
      kind: 'typing',
      attempt: 1,
      plain: true,
      run: async () => {
        this.#lastSent = this.#ctx.clock.now();
        await this.#adapter.typing(this.chat);
        return undefined;
      },
    };
  }

  /** Whatever the failure, typing is retried: the retry table never gives it up. */
  failed(_action: unknown, err: unknown): void {
    // Typing is cosmetic: wait one interval and try again, never retry fast.
    this.#notBefore =
      this.#ctx.clock.now() + Math.max(1000, this.#ctx.capabilities(this.chat).typingIntervalMs);
    this.#ctx.logger.debug({ err, chat: this.chat }, 'typing failed');
  }
}
