/**
 * One-off calls (a notice, an approval prompt, its edit, a delete) as
 * scheduler slots: paced and budgeted like streamed replies, with the same
 * retry rules (plain text after FORMAT_REJECTED, smaller parts after
 * MESSAGE_TOO_LONG, re-read capabilities after CAPABILITY_CHANGED).
 */
import { isErrorCode, SwitchboardError } from '../../errors.js';
import { type FenceState, layoutMarkdown, nextSplit, toPlainText } from '../format/index.js';
import type { Button, ChatAdapter, Dialect, OutboundMessage } from '../types.js';
import { MAX_ATTEMPTS, type OutboxContext, retryDelayMs } from './context.js';
import type { Slot } from './scheduler.js';
import type { SendOptions } from './types.js';

interface Part {
  start: number;
  end: number;
  fence: FenceState | undefined;
  text: string;
  format: Dialect;
}

/** Lays out `source` from `from` for `chat`: rendered markdown parts, or raw text parts. */
function layout(
  ctx: OutboxContext,
  chat: string,
  source: string,
  from: number,
  fence: FenceState | undefined,
  raw: boolean,
): Part[] {
  const caps = ctx.capabilities(chat);
  if (raw) {
    const parts: Part[] = [];
    let start = from;
    let f = fence;
    while (start < source.length) {
      const p = nextSplit(source, start, f, caps.maxMessageLength);
      parts.push({ start, end: p.end, fence: f, text: p.text, format: 'plain' });
      start = p.end;
      f = p.fenceAtEnd;
    }
    return parts;
  }
  let f = fence;
  return layoutMarkdown(source, { dialect: caps.dialect, maxLength: caps.maxMessageLength, from, fence }).map(
    (p) => {
      const part = { start: p.start, end: p.end, fence: f, text: p.rendered, format: caps.dialect };
      f = p.fenceAtEnd;
      return part;
    },
  );
}

/** Sends a (possibly long) message as consecutive parts; buttons go on the last part. */
export class SendJob implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  readonly done: Promise<string[]>;
  #resolve!: (ids: string[]) => void;
  #reject!: (err: unknown) => void;
  #parts: Part[] | undefined;
  #index = 0;
  #ids: string[] = [];
  #attempts = 0;
  #notBefore = 0;
  #finished = false;
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;
  readonly #source: string;
  readonly #options: SendOptions;

  constructor(ctx: OutboxContext, chat: string, markdown: string, options: SendOptions) {
    this.#ctx = ctx;
    this.chat = chat;
    this.#adapter = ctx.adapterFor(chat);
    this.#source = markdown;
    this.#options = options;
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  readyAt(): number {
    return this.#notBefore;
  }

  creates(): boolean {
    return true;
  }

  #layout(from: number, fence: FenceState | undefined): void {
    const rest = layout(this.#ctx, this.chat, this.#source, from, fence, this.#options.plain === true);
    this.#parts = [...(this.#parts ?? []).slice(0, this.#index), ...rest];
  }

  next(): (() => Promise<void>) | undefined {
    if (this.#finished) return undefined;
    if (!this.#parts) this.#layout(0, undefined);
    const parts = this.#parts!;
    const part = parts[this.#index];
    if (!part || parts.every((p) => p.text.trim() === '')) {
      this.#finish();
      return undefined;
    }
    if (part.text.trim() === '') {
      this.#index++;
      return this.next();
    }
    const last = this.#index === parts.length - 1;
    const message: OutboundMessage = {
      text: part.text,
      format: part.format,
      ...(last && this.#options.buttons ? { buttons: this.#options.buttons } : {}),
      ...(this.#index === 0 && this.#options.replyTo !== undefined ? { replyTo: this.#options.replyTo } : {}),
    };
    return async () => {
      const at = this.#ctx.clock.now();
      const sent = await this.#adapter.send(this.chat, message);
      this.#ctx.scheduler.markCall(this.#ctx.messageKey(this.chat, sent.messageId), at);
      this.#ids.push(sent.messageId);
      this.#index++;
      this.#attempts = 0;
      if (this.#index >= parts.length) this.#finish();
    };
  }

  #finish(): void {
    this.#finished = true;
    this.#resolve(this.#ids);
  }

  onError(err: unknown): void {
    const part = this.#parts?.[this.#index];
    if (!part) return;
    if (isErrorCode(err, 'FORMAT_REJECTED') && part.format !== 'plain') {
      const source = this.#source.slice(part.start, part.end);
      this.#parts![this.#index] = { ...part, text: toPlainText(source), format: 'plain' };
      return;
    }
    if (isErrorCode(err, 'MESSAGE_TOO_LONG') || isErrorCode(err, 'CAPABILITY_CHANGED')) {
      if (isErrorCode(err, 'MESSAGE_TOO_LONG')) this.#ctx.shrink(this.chat);
      if (++this.#attempts <= MAX_ATTEMPTS * 2) {
        this.#layout(part.start, part.fence);
        return;
      }
    } else if (++this.#attempts < MAX_ATTEMPTS) {
      this.#notBefore = this.#ctx.clock.now() + retryDelayMs(this.#attempts);
      return;
    }
    this.#finished = true;
    this.#ctx.logger.warn({ err, chat: this.chat, sent: this.#ids.length }, 'outbox send failed');
    this.#reject(err);
  }
}

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

  get(key: string): string | undefined {
    return this.#map.get(key);
  }

  set(key: string, sig: string): void {
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
    this.#sentSig = shown.get(ctx.messageKey(chat, messageId));
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

  readyAt(now: number): number {
    if (this.#waiters.length === 0) return now;
    const key = this.#ctx.messageKey(this.chat, this.messageId);
    const last = this.#ctx.scheduler.lastCall(key);
    const interval = this.#ctx.capabilities(this.chat).minEditIntervalMs;
    return Math.max(this.#notBefore, last === undefined ? now : last + interval);
  }

  #render(): OutboundMessage {
    const caps = this.#ctx.capabilities(this.chat);
    const plain = this.#options.plain === true || this.#plainFor === this.#version;
    let text: string;
    let format: Dialect;
    if (plain) {
      format = 'plain';
      text = this.#options.plain === true ? this.#markdown : toPlainText(this.#markdown);
      if (text.length > caps.maxMessageLength) text = `${text.slice(0, caps.maxMessageLength - 1)}…`;
    } else {
      format = caps.dialect;
      const parts = layoutMarkdown(this.#markdown, { dialect: format, maxLength: caps.maxMessageLength - 2 });
      text = (parts[0]?.rendered ?? '') + (parts.length > 1 ? ' …' : '');
    }
    const buttons: Button[][] | undefined = this.#options.buttons;
    return { text, format, ...(buttons ? { buttons } : {}) };
  }

  next(): (() => Promise<void>) | undefined {
    if (this.#waiters.length === 0) {
      this.#onEmpty();
      return undefined;
    }
    const version = this.#version;
    const message = this.#render();
    const sig = `${message.format}\u0000${message.text}\u0000${JSON.stringify(message.buttons ?? null)}`;
    if (sig === this.#sentSig) {
      this.#settle(version);
      return this.next();
    }
    return async () => {
      const at = this.#ctx.clock.now();
      this.#inFlight = { version, sig };
      this.#ctx.scheduler.markCall(this.#ctx.messageKey(this.chat, this.messageId), at);
      await this.#adapter.edit(this.chat, this.messageId, message);
      this.#sentSig = sig;
      this.#shown.set(this.#ctx.messageKey(this.chat, this.messageId), sig);
      this.#inFlight = undefined;
      this.#attempts = 0;
      this.#settle(version);
    };
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

  onError(err: unknown): void {
    const version = this.#inFlight?.version ?? this.#version;
    this.#inFlight = undefined;
    if (isErrorCode(err, 'FORMAT_REJECTED') && this.#plainFor !== version && this.#options.plain !== true) {
      this.#plainFor = version;
      return;
    }
    if (isErrorCode(err, 'MESSAGE_TOO_LONG')) this.#ctx.shrink(this.chat);
    const retryable =
      isErrorCode(err, 'MESSAGE_TOO_LONG') ||
      isErrorCode(err, 'CAPABILITY_CHANGED') ||
      !isErrorCode(err, 'NOT_FOUND');
    if (retryable && ++this.#attempts < MAX_ATTEMPTS) {
      this.#notBefore = this.#ctx.clock.now() + retryDelayMs(this.#attempts);
      return;
    }
    this.#ctx.logger.warn({ err, chat: this.chat, messageId: this.messageId }, 'outbox edit failed');
    this.#settle(this.#version, err);
  }
}

/** Deletes one message; a message already gone counts as deleted. */
export class DeleteJob implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  readonly done: Promise<void>;
  #resolve!: () => void;
  #reject!: (err: unknown) => void;
  #finished = false;
  #attempts = 0;
  #notBefore = 0;
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;
  readonly #messageId: string;

  constructor(ctx: OutboxContext, chat: string, messageId: string) {
    this.#ctx = ctx;
    this.chat = chat;
    this.#messageId = messageId;
    this.#adapter = ctx.adapterFor(chat);
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  readyAt(): number {
    return this.#notBefore;
  }

  next(): (() => Promise<void>) | undefined {
    if (this.#finished) return undefined;
    return async () => {
      await this.#adapter.delete(this.chat, this.#messageId);
      this.#finished = true;
      this.#resolve();
    };
  }

  onError(err: unknown): void {
    if (isErrorCode(err, 'NOT_FOUND')) {
      this.#finished = true;
      this.#resolve();
      return;
    }
    if (++this.#attempts < MAX_ATTEMPTS) {
      this.#notBefore = this.#ctx.clock.now() + retryDelayMs(this.#attempts);
      return;
    }
    this.#finished = true;
    this.#reject(err instanceof Error ? err : new SwitchboardError('PLATFORM_ERROR', String(err)));
  }
}
