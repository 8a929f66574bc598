/**
 * One-off edits of a message (an approval prompt showing its outcome): the
 * newest text wins, one call in flight, at the message's pace; an edit that
 * would show what the message already shows is not sent.
 */
import type { Button, ChatAdapter, Dialect, OutboundMessage } from '../adapter-contract.js';
import { layoutMarkdown, plain, toPlainText } from '../format/index.js';
import type { OutboxContext } from './context.js';
import type { FailureAction } from './retry.js';
import type { Call, PaceView, Slot } from './scheduler.js';
import { signature } from './segment.js';
import type { SendOptions } from './types.js';

/**
 * What the newest edit of a message showed, so an edit with the same text is
 * not sent again. Bounded: the oldest entries go first.
 */
export class ShownTexts {
  readonly #map = new Map<string, string>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  get(chat: string, messageId: string): string | undefined {
    return this.#map.get(`${chat}\u0000${messageId}`);
  }

  set(chat: string, messageId: string, sig: string): void {
    const key = `${chat}\u0000${messageId}`;
    this.#map.delete(key);
    this.#map.set(key, sig);
    if (this.#map.size > this.#limit) this.#map.delete(this.#map.keys().next().value!);
  }
}

interface EditWaiter {
  version: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Edits of one message: the newest text wins, one call in flight. */
export class EditJob implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  readonly messageId: string;
  #markdown = '';
  #options: SendOptions = {};
  #version = 0;
  #plainFor = -1;
  #sentSig: string | undefined;
  #inFlight: { version: number; sig: string } | undefined;
  #waiters: EditWaiter[] = [];
  #attempts = 0;
  #notBefore = 0;
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;
  readonly #onEmpty: () => void;
  readonly #shown: ShownTexts;

  constructor(ctx: OutboxContext, chat: string, messageId: string, shown: ShownTexts, onEmpty: () => void) {
    this.#ctx = ctx;
    this.chat = chat;
    this.messageId = messageId;
    this.#adapter = ctx.adapterFor(chat);
    this.#shown = shown;
    this.#sentSig = shown.get(chat, messageId);
    this.#onEmpty = onEmpty;
  }

  /** Replaces the wanted text; resolves once this text (or a newer one) is shown. */
  set(markdown: string, options: SendOptions): Promise<void> {
    this.#markdown = markdown;
    this.#options = options;
    const version = ++this.#version;
    this.#attempts = 0;
    return new Promise((resolve, reject) => this.#waiters.push({ version, resolve, reject }));
  }

  readyAt(now: number, pace: PaceView): number {
    if (this.#waiters.length === 0) return now;
    const last = pace.last(this.#ctx.messageKey(this.chat, this.messageId));
    const interval = this.#ctx.capabilities(this.chat).minEditIntervalMs;
    return Math.max(this.#notBefore, last === undefined ? now : last + interval);
  }

  #render(): OutboundMessage {
    const caps = this.#ctx.capabilities(this.chat);
    const asPlain = this.#options.plain === true || this.#plainFor === this.#version;
    let text: string;
    let format: Dialect;
    if (asPlain) {
      format = plain;
      text = this.#options.plain === true ? this.#markdown : toPlainText(this.#markdown);
      if (text.length > caps.maxMessageLength) text = `${text.slice(0, caps.maxMessageLength - 1)}…`;
    } else {
      format = caps.dialect;
      const maxLength = caps.maxMessageLength - 2;
      const mentions = caps.mentions ?? 'none';
      const parts = layoutMarkdown(this.#markdown, { dialect: format, maxLength, mentions });
      text = (parts[0]?.rendered ?? '') + (parts.length > 1 ? ' …' : '');
    }
    const buttons: Button[][] | undefined = this.#options.buttons;
    return { text, format, ...(buttons ? { buttons } : {}) };
  }

  next(): Call | undefined {
    for (;;) {
      if (this.#waiters.length === 0) {
        this.#onEmpty();
        return undefined;
      }
      const version = this.#version;
      const message = this.#render();
      const sig = signature(message);
      if (sig === this.#sentSig) {
        this.#settle(version);
        continue;
      }
      return {
        kind: 'edit',
        attempt: this.#attempts + 1,
        plain: message.format === plain,
        paces: this.#ctx.messageKey(this.chat, this.messageId),
        run: async () => {
          this.#inFlight = { version, sig };
          await this.#adapter.edit(this.chat, this.messageId, message);
          this.#sentSig = sig;
          this.#shown.set(this.chat, this.messageId, sig);
          this.#inFlight = undefined;
          this.#attempts = 0;
          this.#settle(version);
          return undefined;
        },
      };
    }
  }

  #settle(version: number, err?: unknown): void {
    const keep: EditWaiter[] = [];
    for (const w of this.#waiters) {
      if (w.version > version) keep.push(w);
      else if (err === undefined) w.resolve();
      else w.reject(err);
    }
    this.#waiters = keep;
  }

  failed(action: Exclude<FailureAction, { kind: 'pause' }>, err: unknown): void {
    const version = this.#inFlight?.version ?? this.#version;
    this.#inFlight = undefined;
    if (action.kind === 'plain' && this.#plainFor !== version) {
      this.#plainFor = version;
      return;
    }
    this.#attempts++;
    if (action.kind === 'relayout' || action.kind === 'retry') {
      if (action.kind === 'relayout' && action.shrink) this.#ctx.shrink(this.chat);
      this.#notBefore = this.#ctx.clock.now() + action.delayMs;
      return;
    }
    this.#ctx.logger.warn({ err, chat: this.chat, messageId: this.messageId }, 'outbox edit failed');
    this.#settle(this.#version, err);
  }
}
