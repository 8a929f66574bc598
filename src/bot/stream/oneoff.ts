/**
 * One-off sends and deletes (a notice, an approval prompt) as
 * scheduler slots: paced and budgeted like streamed replies, with the same
 * retry rules (plain text after FORMAT_REJECTED, smaller parts after
 * MESSAGE_TOO_LONG, re-read capabilities after CAPABILITY_CHANGED).
 */
import { isErrorCode, SwitchboardError } from '../../errors.js';
import type { ChatAdapter, Dialect, OutboundMessage } from '../adapter-contract.js';
import { type FenceState, layoutMarkdown, nextSplit, toPlainText } from '../format/index.js';
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
      this.#ctx.scheduler.callCompleted(this.#ctx.messageKey(this.chat, sent.messageId), at);
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
