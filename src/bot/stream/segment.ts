/**
 * One message of a streamed reply, as a scheduler slot. It holds the
 * message's identity (id, or native stream handle), what was last shown, and
 * the retry state; what it *should* show comes from its {@link ReplyLayout}
 * at the moment the scheduler grants a call, so every call carries the
 * newest text.
 */
import { isErrorCode } from '../../errors.js';
import type { Button, ChatAdapter, Dialect, OutboundMessage, StreamHandle } from '../adapter-contract.js';
import type { FenceState } from '../format/index.js';
import { type OutboxContext, retryDelayMs } from './context.js';
import type { Slot } from './scheduler.js';

/** Final edits that fail this often are sent as a new message instead. */
export const FINAL_EDIT_ATTEMPTS = 3;
/** Sends of a part that fail this often are given up (and logged). */
export const SEND_ATTEMPTS = 6;

/** What a segment should show now. */
export interface SegmentOutput {
  text: string;
  format: Dialect;
  buttons?: Button[][];
}

/** The reply a segment belongs to (see reply.ts). */
export interface ReplyLayout {
  readonly chat: string;
  readonly replyTo: string | undefined;
  /** What `segment` should show; null when it has nothing to show. Lays out live text on demand. */
  output(segment: Segment): SegmentOutput | null;
  /** Pace between two live updates of one message. */
  liveIntervalMs(): number;
  /** True when the next call creates a message while an earlier segment has no real message yet (keeps messages in order). */
  blocked(segment: Segment): boolean;
  /** Earliest time the first message may be created: once it can show a whole word. */
  firstWordAt(segment: Segment, now: number): number;
  /** Something about a segment changed (created, delivered, abandoned). */
  changed(segment: Segment): void;
  /** A native stream could not be started: the reply falls back to edits. */
  disableNative(): void;
  /** CAPABILITY_CHANGED or MESSAGE_TOO_LONG: lay everything out again. */
  relayout(): void;
  /** A native stream was opened at `at`. */
  streamStarted(segment: Segment, at: number): void;
}

export const signature = (o: SegmentOutput) =>
  `${o.format}\u0000${o.text}\u0000${o.buttons ? JSON.stringify(o.buttons) : ''}`;

/** One message of a reply. */
export class Segment implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  /** Source range: `end` is undefined while the segment is the live one. */
  start: number;
  fence: FenceState | undefined;
  end: number | undefined;
  /** The Markdown (with added fence lines) of a frozen segment. */
  partText = '';
  /** Frozen: its text is fixed and its final form must be delivered. */
  final = false;
  delivered = false;
  abandoned = false;
  /** Format rejected: show this segment as plain text. */
  plain = false;
  mode: 'edit' | 'stream';
  id: string | undefined;
  stream: StreamHandle | undefined;
  /** Cached final output (cleared when the layout changes). */
  finalOutput: SegmentOutput | null | undefined;
  /** Buttons were shown on this message (they must be removed at the end). */
  hadButtons = false;
  /** The wanted output may differ from what was last shown. */
  dirty = true;
  /** Frozen with text that was already visible: only cosmetic work (buttons, status) is left. */
  cosmetic = false;
  /** Source offset up to which the live output being built covers the text. */
  pendingEnd: number | undefined;
  /** Source offset up to which this message has shown the text (live edits). */
  shownEnd: number | undefined;
  #sentSig: string | undefined;
  /** The kind of the call in flight (or last made), to read its error right. */
  #call: 'send' | 'edit' | 'delete' | 'start' | 'update' | 'finish' = 'send';
  #attempts = 0;
  #notBefore = 0;
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;
  readonly #reply: ReplyLayout;

  constructor(
    ctx: OutboxContext,
    adapter: ChatAdapter,
    reply: ReplyLayout,
    start: number,
    fence: FenceState | undefined,
    mode: 'edit' | 'stream',
  ) {
    this.#ctx = ctx;
    this.#adapter = adapter;
    this.#reply = reply;
    this.chat = reply.chat;
    this.start = start;
    this.fence = fence;
    this.mode = mode;
  }

  /** Queues this segment with the scheduler. */
  wake(): void {
    this.#ctx.scheduler.wake(this, this.#adapter);
  }

  /** New text arrived: cheap when a call is already planned (called once per delta). */
  grow(): void {
    this.dirty = true;
    this.#ctx.scheduler.wake(this, this.#adapter, true);
  }

  /** Marks the content changed and queues a call. */
  touch(): void {
    this.dirty = true;
    this.wake();
  }

  /** Called with new layout: forget the cached final form. */
  reset(): void {
    this.cosmetic = false;
    this.finalOutput = undefined;
    this.delivered = false;
    this.dirty = true;
    this.#attempts = 0;
  }

  unbudgeted(): boolean {
    return this.mode === 'stream' && !this.stream && !this.final;
  }

  deferrable(): boolean {
    // Without an id the message must be sent again: that is not cosmetic.
    return this.cosmetic && this.final && !this.settled && this.id !== undefined;
  }

  creates(): boolean {
    return (this.id === undefined && !this.stream) || (this.stream !== undefined && this.final);
  }

  get settled(): boolean {
    return this.delivered || this.abandoned;
  }

  readyAt(now: number): number {
    if (this.settled || !this.dirty) return now;
    if (this.#reply.blocked(this)) return Number.POSITIVE_INFINITY;
    let at = Math.max(now, this.#notBefore);
    if (!this.final && this.id === undefined && !this.stream)
      at = Math.max(at, this.#reply.firstWordAt(this, now));
    const key = this.stream
      ? this.#ctx.streamKey(this.chat, this.stream.id)
      : this.id !== undefined
        ? this.#ctx.messageKey(this.chat, this.id)
        : undefined;
    if (key !== undefined) {
      const last = this.#ctx.scheduler.lastCall(key);
      const interval = this.final
        ? this.#ctx.capabilities(this.chat).minEditIntervalMs
        : this.#reply.liveIntervalMs();
      if (last !== undefined) at = Math.max(at, last + interval);
    }
    return at;
  }

  next(): (() => Promise<void>) | 'later' | undefined {
    if (this.settled) return undefined;
    const wasLive = !this.final;
    this.pendingEnd = undefined;
    const out = this.#reply.output(this);
    // Laying out the live text just made this message permanent with text it
    // already shows: its remaining edit is cosmetic and may wait for the new
    // message to go first.
    if (wasLive && this.final && this.cosmetic) return 'later';
    const end = this.pendingEnd;
    if (out === null) {
      this.dirty = false;
      if (!this.final) return undefined;
      if (this.stream) {
        // A stream that never held visible text: nothing to keep.
        this.abandoned = true;
        this.stream = undefined;
        this.#reply.changed(this);
        return undefined;
      }
      if (this.id === undefined) {
        this.delivered = true;
        this.#reply.changed(this);
        return undefined;
      }
      const id = this.id;
      this.#call = 'delete';
      return async () => {
        await this.#adapter.delete(this.chat, id);
        this.id = undefined;
        this.delivered = true;
        this.#reply.changed(this);
      };
    }
    const sig = signature(out);
    if (this.mode === 'stream' && (this.stream || !this.final)) return this.#streamCall(out, sig, end);
    if (this.id !== undefined && sig === this.#sentSig) {
      this.dirty = false;
      if (this.final) {
        this.delivered = true;
        this.#reply.changed(this);
      }
      return undefined;
    }
    this.dirty = false;
    const message = this.#message(out);
    if (this.id === undefined) {
      const first = this.#reply.replyTo !== undefined && this.start === 0;
      const send = first ? { ...message, replyTo: this.#reply.replyTo! } : message;
      this.#call = 'send';
      return async () => {
        const at = this.#ctx.clock.now();
        const sent = await this.#adapter.send(this.chat, send);
        this.id = sent.messageId;
        this.#ctx.scheduler.callCompleted(this.#ctx.messageKey(this.chat, sent.messageId), at);
        this.#shown(out, sig, end);
      };
    }
    const id = this.id;
    this.#call = 'edit';
    return async () => {
      await this.#ctx.scheduler.pacedCall(this.#ctx.messageKey(this.chat, id), () =>
        this.#adapter.edit(this.chat, id, message),
      );
      this.#shown(out, sig, end);
    };
  }

  #message(out: SegmentOutput): OutboundMessage {
    return { text: out.text, format: out.format, ...(out.buttons ? { buttons: out.buttons } : {}) };
  }

  #streamCall(out: SegmentOutput, sig: string, end: number | undefined): (() => Promise<void>) | undefined {
    const adapter = this.#adapter;
    if (!this.stream) {
      this.dirty = true;
      this.#call = 'start';
      return async () => {
        const at = this.#ctx.clock.now();
        this.stream = await adapter.startStream!(this.chat, {
          ...(this.#reply.replyTo !== undefined && this.start === 0 ? { replyTo: this.#reply.replyTo } : {}),
        });
        this.#attempts = 0;
        this.#reply.streamStarted(this, at);
      };
    }
    const handle = this.stream;
    const key = this.#ctx.streamKey(this.chat, handle.id);
    if (this.final) {
      this.dirty = false;
      this.#call = 'finish';
      return async () => {
        const sent = await this.#ctx.scheduler.pacedCall(key, () =>
          adapter.finishStream!(handle, this.#message(out)),
        );
        this.stream = undefined;
        this.mode = 'edit';
        this.id = sent.messageId;
        this.#ctx.scheduler.markCall(this.#ctx.messageKey(this.chat, sent.messageId), this.#ctx.clock.now());
        this.#shown(out, sig, end);
      };
    }
    if (sig === this.#sentSig) {
      this.dirty = false;
      return undefined;
    }
    this.dirty = false;
    this.#call = 'update';
    return async () => {
      await this.#ctx.scheduler.pacedCall(key, () => adapter.updateStream!(handle, this.#message(out)));
      this.#shown(out, sig, end);
    };
  }

  #shown(out: SegmentOutput, sig: string, end: number | undefined): void {
    this.#sentSig = sig;
    if (end !== undefined) this.shownEnd = end;
    this.#attempts = 0;
    if (out.buttons && out.buttons.length > 0) this.hadButtons = true;
    if (this.final) {
      // An update of a still-open stream is no delivery, even with the final
      // text: only finishing it makes the text a message.
      const wanted = this.stream ? null : this.#reply.output(this);
      if (wanted !== null && signature(wanted) === sig) this.delivered = true;
      else this.dirty = true;
    }
    this.#reply.changed(this);
  }

  onError(err: unknown): void {
    this.dirty = true;
    const now = this.#ctx.clock.now();
    if (isErrorCode(err, 'FORMAT_REJECTED') && !this.plain) {
      this.plain = true;
      this.finalOutput = undefined;
      return;
    }
    if (isErrorCode(err, 'CAPABILITY_CHANGED') || isErrorCode(err, 'MESSAGE_TOO_LONG')) {
      if (isErrorCode(err, 'MESSAGE_TOO_LONG')) this.#ctx.shrink(this.chat);
      this.#attempts++;
      // A platform that keeps saying this must not be asked in a tight loop.
      if (this.#attempts > 2) this.#notBefore = now + retryDelayMs(this.#attempts - 2);
      this.#reply.relayout();
      return;
    }
    if (isErrorCode(err, 'NOT_FOUND') && this.#call === 'delete') {
      this.id = undefined;
      this.delivered = true;
      this.#reply.changed(this);
      return;
    }
    if (isErrorCode(err, 'NOT_FOUND') && this.#call !== 'send') {
      if (this.#call === 'start') {
        this.#reply.disableNative();
        return;
      }
      // The message or stream is gone: what it should hold goes out as a new message.
      this.stream = undefined;
      this.mode = 'edit';
      this.id = undefined;
      this.#sentSig = undefined;
      this.#reply.changed(this);
      return;
    }
    this.#attempts++;
    this.#ctx.logger.debug({ err, chat: this.chat, attempts: this.#attempts }, 'outbox call failed');
    if (this.final && (this.id !== undefined || this.stream) && this.#attempts >= FINAL_EDIT_ATTEMPTS) {
      // The final edit keeps failing: deliver this part as a new message.
      this.#ctx.logger.warn({ err, chat: this.chat }, 'final edit failed; sending the text as a new message');
      this.stream = undefined;
      this.mode = 'edit';
      this.id = undefined;
      this.#sentSig = undefined;
      this.#attempts = 0;
      this.#reply.changed(this);
      return;
    }
    if (this.id === undefined && !this.stream && this.#attempts >= SEND_ATTEMPTS) {
      this.abandoned = true;
      this.#ctx.logger.error({ err, chat: this.chat }, 'outbox could not deliver part of a reply');
      this.#reply.changed(this);
      return;
    }
    this.#notBefore = now + retryDelayMs(this.#attempts);
  }
}
