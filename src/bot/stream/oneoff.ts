/**
 * One-off sends and deletes (a notice, an approval prompt) as scheduler
 * slots: paced and budgeted like streamed replies, their failures read from
 * the same retry table (plain text after FORMAT_REJECTED, smaller parts
 * after MESSAGE_TOO_LONG, re-read capabilities after CAPABILITY_CHANGED).
 */
import type { ChatAdapter, Dialect, OutboundMessage } from '../adapter-contract.js';
import { type FenceState, plain, toPlainText } from '../format/index.js';
import type { OutboxContext } from './context.js';
import { messageParts } from './message-parts.js';
import type { FailureAction } from './retry.js';
import type { Call, Slot } from './scheduler.js';
import { SingleCallJob, type SlotFailure } from './single-call.js';
import type { SendOptions } from './types.js';

/** One message of a one-off send: where it comes from in the source, and what goes out. */
interface Outgoing {
  start: number;
  end: number;
  fence: FenceState | undefined;
  text: string;
  format: Dialect;
}

/** A slot failure the scheduler hands back (never a pause). */
type Failure = Exclude<FailureAction, { kind: 'pause' }>;

/** Sends a (possibly long) message as consecutive parts; buttons go on the last part. */
export class SendJob implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  readonly done: Promise<string[]>;
  #resolve!: (ids: string[]) => void;
  #reject!: (err: unknown) => void;
  #parts: Outgoing[] | undefined;
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

  /** Lays out the source from `from` again (the parts before the current one are sent). */
  #layout(from: number, fence: FenceState | undefined): void {
    const caps = this.#ctx.capabilities(this.chat);
    const raw = this.#options.plain === true;
    const format: Dialect = raw ? plain : caps.dialect;
    const options = { caps, dialect: format, raw, final: true, statusRoom: false };
    const rest = messageParts(this.#source, from, fence, options).map((p) => ({
      start: p.start,
      end: p.end,
      fence: p.fence,
      text: p.rendered,
      format,
    }));
    this.#parts = [...(this.#parts ?? []).slice(0, this.#index), ...rest];
  }

  next(): Call | undefined {
    if (this.#finished) return undefined;
    if (!this.#parts) this.#layout(0, undefined);
    const parts = this.#parts!;
    while (parts[this.#index]?.text.trim() === '' && this.#index < parts.length - 1) this.#index++;
    const part = parts[this.#index];
    if (!part || part.text.trim() === '') {
      this.#finish();
      return undefined;
    }
    const last = this.#index === parts.length - 1;
    const message: OutboundMessage = {
      text: part.text,
      format: part.format,
      ...(last && this.#options.buttons ? { buttons: this.#options.buttons } : {}),
      ...(this.#index === 0 && this.#options.replyTo !== undefined ? { replyTo: this.#options.replyTo } : {}),
    };
    return {
      kind: 'send',
      attempt: this.#attempts + 1,
      plain: part.format === plain,
      run: async () => {
        const sent = await this.#adapter.send(this.chat, message);
        this.#ids.push(sent.messageId);
        this.#index++;
        this.#attempts = 0;
        if (this.#index >= parts.length) this.#finish();
        return this.#ctx.messageKey(this.chat, sent.messageId);
      },
    };
  }

  #finish(): void {
    this.#finished = true;
    this.#resolve(this.#ids);
  }

  failed(action: Failure, err: unknown): void {
    const part = this.#parts?.[this.#index];
    if (!part) return;
    // Plain text is a different call, not another attempt at the same one.
    if (action.kind !== 'plain') this.#attempts++;
    switch (action.kind) {
      case 'plain':
        this.#parts![this.#index] = {
          ...part,
          text: toPlainText(this.#source.slice(part.start, part.end)),
          format: plain,
        };
        return;
      case 'relayout':
        if (action.shrink) this.#ctx.shrink(this.chat);
        this.#notBefore = this.#ctx.clock.now() + action.delayMs;
        this.#layout(part.start, part.fence);
        return;
      case 'retry':
        this.#notBefore = this.#ctx.clock.now() + action.delayMs;
        return;
      default:
        this.#finished = true;
        this.#ctx.logger.warn({ err, chat: this.chat, sent: this.#ids.length }, 'outbox send failed');
        this.#reject(err);
    }
  }
}

/** Deletes one message; a message already gone counts as deleted. */
export class DeleteJob extends SingleCallJob<void> {
  protected readonly callKind = 'delete' as const;
  readonly #messageId: string;

  constructor(ctx: OutboxContext, chat: string, messageId: string) {
    super(ctx, chat);
    this.#messageId = messageId;
  }

  protected async call(): Promise<{ value: undefined }> {
    await this.adapter.delete(this.chat, this.#messageId);
    return { value: undefined };
  }

  protected givenUp(action: SlotFailure): { value: undefined } | undefined {
    return action.kind === 'gone' ? { value: undefined } : undefined;
  }
}
