/**
 * A streamed reply: text deltas accumulate in one string; the reply decides
 * which part of it each message (segment) holds, and the segments' slots make
 * the calls when the scheduler allows. Layout happens only when a call is
 * about to be made, so append() stays O(delta) and rendering happens at most
 * once per edit interval. How the text is laid out over messages is in
 * reply-layout.ts; this file holds the reply's API, delivery waits, message
 * order and pacing.
 */
import type { TimerHandle } from '../../clock.js';
import type { OutboxContext } from './context.js';
import { ReplySegments } from './reply-layout.js';
import { fenceAfter, liveIntervalMs } from './reply-parts.js';
import type { Segment } from './segment.js';
import type { DeliveredReply, ReplyStream, StreamOptions } from './types.js';

/** Longest wait for a whole first word before the first message is sent anyway. */
const FIRST_WORD_WAIT_MS = 300;

/** The {@link ReplyStream} of the outbox. */
export class Reply extends ReplySegments implements ReplyStream {
  readonly replyTo: string | undefined;
  #finishing: Promise<DeliveredReply> | undefined;
  /** When the first text arrived. */
  #firstTextAt: number | undefined;
  #streamTimer: TimerHandle | undefined;
  #waiters: { segments: Segment[]; resolve: () => void }[] = [];

  constructor(ctx: OutboxContext, chat: string, options: StreamOptions, deleteMessage: (id: string) => void) {
    super(ctx, chat, options.liveButtons, deleteMessage);
    this.replyTo = options.replyTo;
  }

  get text(): string {
    return this.markdown;
  }

  get messageIds(): readonly string[] {
    const ids: string[] = [];
    for (const s of this.segments) if (s.id !== undefined) ids.push(s.id);
    return ids;
  }

  append(delta: string): void {
    if (delta === '' || this.finished) return;
    this.#firstTextAt ??= this.ctx.clock.now();
    this.markdown += delta;
    this.layoutDirty = true;
    const live = this.live ?? this.newLive();
    // Until the first message exists, each delta may make it ready (a whole word arrived).
    if (live.id === undefined && !live.stream) live.touch();
    else live.grow();
  }

  setStatus(line: string | undefined): void {
    if (this.finished || line === this.status) return;
    this.status = line;
    if (this.live) this.live.touch();
    else if (line !== undefined && !this.native) this.newLive().touch();
  }

  async checkpoint(): Promise<void> {
    if (this.finished) {
      await this.#finishing;
      return;
    }
    if (this.live) {
      this.finalizeLive(this.markdown);
      this.stops.push(this.markdown.length);
    }
    await this.#settled();
  }

  finish(options: { note?: string } = {}): Promise<DeliveredReply> {
    if (this.#finishing) return this.#finishing;
    this.finished = true;
    this.status = undefined;
    this.clearStreamTimer();
    if (options.note) {
      const live = this.live;
      const text = this.markdown;
      const fence = live
        ? fenceAfter(text, live.start, live.fence)
        : fenceAfter(text, this.nextStart, this.nextFence);
      const close = fence ? `${text.endsWith('\n') ? '' : '\n'}${fence.indent}${fence.marker}` : '';
      const sep = text.trim() === '' ? '' : '\n\n';
      this.note = `${close}${sep}_${options.note.replace(/[\\`*_~[\]<>]/g, '\\$&')}_`;
    }
    if (this.live || this.note !== '' || this.markdown.length > this.nextStart) {
      if (!this.live) this.newLive();
      this.finalizeLive(this.markdown + this.note);
    }
    for (const s of this.segments) if (!s.settled) s.touch();
    this.#finishing = this.#settled().then(() => ({ messageIds: [...this.messageIds], text: this.markdown }));
    return this.#finishing;
  }

  // ---- ReplyLayout: order and pacing (used by segments) -------------------

  liveIntervalMs(): number {
    return liveIntervalMs(this.ctx.capabilities(this.chat));
  }

  firstWordAt(segment: Segment, now: number): number {
    if (segment.start > 0 || this.#firstTextAt === undefined || this.status !== undefined) return now;
    // A first message holding half a word wastes the first pacing slot (the next
    // update may be seconds away in a group): wait briefly for a word boundary.
    if (/\S\s/.test(this.markdown)) return now;
    return this.#firstTextAt + FIRST_WORD_WAIT_MS;
  }

  blocked(segment: Segment): boolean {
    // Updates of a message or of an open stream create nothing new. Sends,
    // stream starts and stream finishes do (a finished draft becomes a real
    // message), so they wait until every earlier part has a real message: an
    // open stream is not one yet, and a re-split (CAPABILITY_CHANGED,
    // MESSAGE_TOO_LONG) can leave it waiting for its pace slot.
    if (segment.id !== undefined || (segment.stream && !segment.final)) return false;
    for (const s of this.segments) {
      if (s === segment) return false;
      if (!s.settled && s.id === undefined) return true;
    }
    return false;
  }

  changed(_segment: Segment): void {
    if (this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((w) => w.segments.every((s) => s.settled));
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }

  streamStarted(segment: Segment, at: number): void {
    const caps = this.ctx.capabilities(this.chat);
    if (!caps.nativeStreamMaxMs || segment !== this.live) return;
    const margin = Math.max(2 * this.liveIntervalMs(), caps.nativeStreamMaxMs * 0.1);
    this.clearStreamTimer();
    this.#streamTimer = this.ctx.clock.setTimeout(
      () => {
        this.#streamTimer = undefined;
        this.#rollStream(segment);
      },
      Math.max(0, at + caps.nativeStreamMaxMs - margin - this.ctx.clock.now()),
    );
  }

  protected segmentsReplaced(): void {
    for (const w of this.#waiters)
      for (const s of this.segments) if (!w.segments.includes(s)) w.segments.push(s);
  }

  protected clearStreamTimer(): void {
    if (this.#streamTimer !== undefined) this.ctx.clock.clearTimeout(this.#streamTimer);
    this.#streamTimer = undefined;
  }

  /** A native stream nears its maximum age: make it a message and go on in a new stream. */
  #rollStream(segment: Segment): void {
    if (this.finished || segment !== this.live || !segment.stream) return;
    const text = this.markdown;
    let cut = text.lastIndexOf('\n') + 1;
    if (cut <= segment.start) cut = text.lastIndexOf(' ') + 1;
    if (cut <= segment.start) cut = text.length;
    if (cut <= segment.start) return;
    this.finalizeLive(text.slice(0, cut));
    this.stops.push(cut);
    if (text.length > cut) this.newLive().touch();
  }

  /** Resolves when every segment that exists now is delivered (or given up). */
  #settled(): Promise<void> {
    const segments = [...this.segments];
    if (segments.every((s) => s.settled)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ segments, resolve }));
  }
}
