/**
 * A streamed reply: text deltas accumulate in one string; the reply decides
 * which part of it each message (segment) holds, and the segments' slots make
 * the calls when the scheduler allows. Layout happens only when a call is
 * about to be made, so append() stays O(delta) and rendering happens at most
 * once per edit interval.
 */
import type { TimerHandle } from '../../clock.js';
import { type FenceState, RenderCache, renderPart, renderStatusLine } from '../format/index.js';
import type { Button, ChatAdapter, Dialect } from '../types.js';
import type { OutboxContext } from './context.js';
import { cutNear, fenceAfter, layoutParts, liveIntervalMs, type Part, partUntil } from './reply-parts.js';
import { type ReplyLayout, Segment, type SegmentOutput } from './segment.js';
import type { DeliveredReply, ReplyStream, StreamOptions } from './types.js';

/** Longest wait for a whole first word before the first message is sent anyway. */
const FIRST_WORD_WAIT_MS = 300;

/** The {@link ReplyStream} of the outbox. */
export class Reply implements ReplyStream, ReplyLayout {
  readonly chat: string;
  readonly replyTo: string | undefined;
  #text = '';
  #note = '';
  #status: string | undefined;
  #finished = false;
  #finishing: Promise<DeliveredReply> | undefined;
  readonly #segments: Segment[] = [];
  #live: Segment | undefined;
  /** Where the next live segment starts (after a checkpoint or a stream roll). */
  #nextStart = 0;
  #nextFence: FenceState | undefined;
  /** Offsets where a message was made permanent on purpose; a relayout keeps them. */
  readonly #stops: number[] = [];
  #native: boolean;
  readonly #liveButtons: Button[][] | undefined;
  #layoutDirty = true;
  #liveRendered = '';
  /** When the first text arrived. */
  #firstTextAt: number | undefined;
  /** Source offset the live rendering covers. */
  #liveEnd = 0;
  #streamTimer: TimerHandle | undefined;
  /** Renderings of finished block groups of the live text. */
  readonly #cache = new RenderCache(64);
  #waiters: { segments: Segment[]; resolve: () => void }[] = [];
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;
  readonly #deleteMessage: (id: string) => void;

  constructor(ctx: OutboxContext, chat: string, options: StreamOptions, deleteMessage: (id: string) => void) {
    this.#ctx = ctx;
    this.chat = chat;
    this.replyTo = options.replyTo;
    this.#liveButtons = options.liveButtons;
    this.#adapter = ctx.adapterFor(chat);
    this.#deleteMessage = deleteMessage;
    const a = this.#adapter;
    this.#native =
      ctx.capabilities(chat).nativeStream &&
      typeof a.startStream === 'function' &&
      typeof a.updateStream === 'function' &&
      typeof a.finishStream === 'function';
  }

  get text(): string {
    return this.#text;
  }

  get messageIds(): readonly string[] {
    const ids: string[] = [];
    for (const s of this.#segments) if (s.id !== undefined) ids.push(s.id);
    return ids;
  }

  append(delta: string): void {
    if (delta === '' || this.#finished) return;
    this.#firstTextAt ??= this.#ctx.clock.now();
    this.#text += delta;
    this.#layoutDirty = true;
    const live = this.#live ?? this.#newLive();
    // Until the first message exists, each delta may make it ready (a whole word arrived).
    if (live.id === undefined && !live.stream) live.touch();
    else live.grow();
  }

  setStatus(line: string | undefined): void {
    if (this.#finished || line === this.#status) return;
    this.#status = line;
    if (this.#live) this.#live.touch();
    else if (line !== undefined && !this.#native) this.#newLive().touch();
  }

  async checkpoint(): Promise<void> {
    if (this.#finished) {
      await this.#finishing;
      return;
    }
    if (this.#live) {
      this.#finalizeLive(this.#text);
      this.#stops.push(this.#text.length);
    }
    await this.#settled();
  }

  finish(options: { note?: string } = {}): Promise<DeliveredReply> {
    if (this.#finishing) return this.#finishing;
    this.#finished = true;
    this.#status = undefined;
    this.#clearStreamTimer();
    if (options.note) {
      const live = this.#live;
      const fence = live
        ? fenceAfter(this.#text, live.start, live.fence)
        : fenceAfter(this.#text, this.#nextStart, this.#nextFence);
      const close = fence ? `${this.#text.endsWith('\n') ? '' : '\n'}${fence.indent}${fence.marker}` : '';
      const sep = this.#text.trim() === '' ? '' : '\n\n';
      this.#note = `${close}${sep}_${options.note.replace(/[\\`*_~[\]<>]/g, '\\$&')}_`;
    }
    if (this.#live || this.#note !== '' || this.#text.length > this.#nextStart) {
      if (!this.#live) this.#newLive();
      this.#finalizeLive(this.#text + this.#note);
    }
    for (const s of this.#segments) if (!s.settled) s.touch();
    this.#finishing = this.#settled().then(() => ({ messageIds: [...this.messageIds], text: this.#text }));
    return this.#finishing;
  }

  // ---- ReplyLayout (used by segments) ------------------------------------

  output(segment: Segment): SegmentOutput | null {
    if (segment.final) return this.#finalOutput(segment);
    if (segment !== this.#live) return null;
    this.#relayoutLive();
    if (segment.final) return this.#finalOutput(segment);
    const dialect = this.#dialect(segment);
    let text = this.#liveRendered;
    if (this.#status !== undefined && segment.mode === 'edit') {
      const line = renderStatusLine(this.#status, dialect);
      if (line !== '') text = text.trim() === '' ? line : `${text}\n\n${line}`;
    }
    if (text.trim() === '') return null;
    segment.pendingEnd = this.#liveEnd;
    const buttons = this.#liveButtons ?? (segment.hadButtons ? [] : undefined);
    return { text, format: dialect, ...(buttons ? { buttons } : {}) };
  }

  liveIntervalMs(): number {
    return liveIntervalMs(this.#ctx.capabilities(this.chat));
  }

  firstWordAt(segment: Segment, now: number): number {
    if (segment.start > 0 || this.#firstTextAt === undefined || this.#status !== undefined) return now;
    // A first message holding half a word wastes the first pacing slot (the next
    // update may be seconds away in a group): wait briefly for a word boundary.
    if (/\S\s/.test(this.#text)) return now;
    return this.#firstTextAt + FIRST_WORD_WAIT_MS;
  }

  blocked(segment: Segment): boolean {
    // Updates of a message or of an open stream create nothing new. Sends,
    // stream starts and stream finishes do (a finished draft becomes a real
    // message), so they wait until every earlier part has a real message: an
    // open stream is not one yet, and a re-split (CAPABILITY_CHANGED,
    // MESSAGE_TOO_LONG) can leave it waiting for its pace slot.
    if (segment.id !== undefined || (segment.stream && !segment.final)) return false;
    for (const s of this.#segments) {
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

  disableNative(): void {
    this.#native = false;
    for (const s of this.#segments) {
      if (s.mode === 'stream' && !s.stream) {
        s.mode = 'edit';
        s.finalOutput = undefined;
        s.touch();
      }
    }
    this.#layoutDirty = true;
  }

  relayout(): void {
    const first = this.#segments.findIndex((s) => !s.settled);
    if (first < 0) return;
    if (!this.#ctx.capabilities(this.chat).nativeStream) this.disableNative();
    const targets = this.#segments.slice(first).filter((s) => !s.abandoned);
    const head = targets[0]!;
    const parts: Part[] = [];
    let from = head.start;
    let fence = head.fence;
    for (const stop of this.#stops) {
      if (stop <= from) continue;
      const md = this.#text.slice(0, stop);
      const region = this.#layout(md, from, fence, head, true);
      parts.push(...region);
      fence = fenceAfter(md, from, fence);
      from = stop;
    }
    const tail = this.#finished
      ? this.#layout(this.#text + this.#note, from, fence, head, true)
      : this.#layout(this.#text, from, fence, head, false);
    const finalCount = parts.length + (this.#finished ? tail.length : Math.max(0, tail.length - 1));
    parts.push(...tail);
    this.#segments.splice(first);
    this.#live = undefined;
    for (let i = 0; i < Math.max(parts.length, targets.length); i++) {
      const part = parts[i];
      let seg = targets[i];
      if (!part) {
        // More messages than the new layout needs: remove the surplus.
        seg!.abandoned = true;
        if (seg!.id !== undefined) this.#deleteMessage(seg!.id);
        continue;
      }
      if (!seg) seg = new Segment(this.#ctx, this.#adapter, this, part.start, part.fence, this.#mode());
      seg.reset();
      seg.start = part.start;
      seg.fence = part.fence;
      this.#segments.push(seg);
      if (i < finalCount) this.#freezeAs(seg, part);
      else {
        seg.final = false;
        seg.end = undefined;
        this.#live = seg;
        this.#liveRendered = part.rendered;
        this.#liveEnd = this.#text.length;
      }
    }
    if (!this.#live && !this.#finished) {
      const last = parts[parts.length - 1];
      if (last) {
        this.#nextStart = last.end;
        this.#nextFence = last.fenceAtEnd;
      }
    }
    this.#layoutDirty = this.#live !== undefined;
    // Whoever waits for delivery (finish) now also waits for the parts the new layout added.
    for (const w of this.#waiters)
      for (const s of this.#segments) if (!w.segments.includes(s)) w.segments.push(s);
    for (const s of this.#segments) if (!s.settled) s.touch();
    this.changed(head);
  }

  streamStarted(segment: Segment, at: number): void {
    const caps = this.#ctx.capabilities(this.chat);
    if (!caps.nativeStreamMaxMs || segment !== this.#live) return;
    const margin = Math.max(2 * this.liveIntervalMs(), caps.nativeStreamMaxMs * 0.1);
    this.#clearStreamTimer();
    this.#streamTimer = this.#ctx.clock.setTimeout(
      () => {
        this.#streamTimer = undefined;
        this.#rollStream(segment);
      },
      Math.max(0, at + caps.nativeStreamMaxMs - margin - this.#ctx.clock.now()),
    );
  }

  // ---- internals ----------------------------------------------------------

  #mode(): 'edit' | 'stream' {
    return this.#native ? 'stream' : 'edit';
  }

  #newLive(): Segment {
    const seg = new Segment(this.#ctx, this.#adapter, this, this.#nextStart, this.#nextFence, this.#mode());
    this.#segments.push(seg);
    this.#live = seg;
    this.#layoutDirty = true;
    return seg;
  }

  #dialect(segment: Segment): Dialect {
    return segment.plain ? 'plain' : this.#ctx.capabilities(this.chat).dialect;
  }

  /** Streams in plain Markdown carry the model's own text, so they only ever grow. */
  #raw(segment: Segment): boolean {
    return segment.mode === 'stream' && this.#dialect(segment) === 'markdown';
  }

  #finalOutput(segment: Segment): SegmentOutput | null {
    if (segment.finalOutput !== undefined) return segment.finalOutput;
    const dialect = this.#dialect(segment);
    const text = this.#raw(segment) ? segment.partText.trim() : renderPart(segment.partText, dialect, false);
    segment.finalOutput =
      text.trim() === ''
        ? null
        : { text, format: dialect, ...(segment.hadButtons ? { buttons: [] as Button[][] } : {}) };
    return segment.finalOutput;
  }

  /** Lays out `md` from `from`: final parts at full length, or live parts with room for the status. */
  #layout(md: string, from: number, fence: FenceState | undefined, like: Segment, final: boolean): Part[] {
    const caps = this.#ctx.capabilities(this.chat);
    const options = {
      caps,
      dialect: this.#dialect(like),
      raw: this.#raw(like),
      final,
      statusRoom: !final && like.mode === 'edit',
      cache: this.#cache,
    };
    return layoutParts(md, from, fence, options);
  }

  #freezeAs(segment: Segment, part: Part): void {
    segment.final = true;
    segment.end = part.end;
    segment.partText = part.text;
    segment.finalOutput = undefined;
    segment.dirty = true;
  }

  /** New frozen segments for `parts` after `after`, in order. */
  #addFrozen(parts: Part[]): void {
    for (const part of parts) {
      const seg = new Segment(this.#ctx, this.#adapter, this, part.start, part.fence, this.#mode());
      this.#freezeAs(seg, part);
      this.#segments.push(seg);
      seg.wake();
    }
  }

  /** Splits the live text; everything but its last part becomes permanent messages. */
  #relayoutLive(): void {
    if (!this.#layoutDirty || !this.#live) return;
    this.#layoutDirty = false;
    const live = this.#live;
    const parts = this.#layout(this.#text, live.start, live.fence, live, false);
    if (parts.length === 0) {
      this.#liveRendered = '';
      return;
    }
    if (parts.length > 1 && this.#freezeShown(live)) return;
    const last = parts[parts.length - 1]!;
    this.#liveEnd = this.#text.length;
    if (parts.length > 1) {
      this.#freezeAs(live, parts[0]!);
      this.#addFrozen(parts.slice(1, -1));
      const seg = new Segment(this.#ctx, this.#adapter, this, last.start, last.fence, this.#mode());
      this.#segments.push(seg);
      this.#live = seg;
      seg.wake();
    }
    this.#liveRendered = last.rendered;
  }

  /**
   * The live text outgrew its message: end the message at a boundary within
   * the text it already shows, so nothing in it waits to become visible and
   * its last (cosmetic) edit can give way to the new message. False when the
   * message has shown too little for that.
   */
  #freezeShown(live: Segment): boolean {
    const shown = live.shownEnd;
    if (live.mode !== 'edit' || live.id === undefined || shown === undefined) return false;
    const caps = this.#ctx.capabilities(this.chat);
    if (shown - live.start < caps.maxMessageLength / 3) return false;
    const cut = cutNear(this.#text, live.start, shown);
    if (cut <= live.start) return false;
    const part = partUntil(
      this.#text,
      live.start,
      live.fence,
      cut,
      this.#dialect(live),
      caps.maxMessageLength,
    );
    if (!part) return false;
    this.#freezeAs(live, part);
    live.cosmetic = true;
    const seg = new Segment(this.#ctx, this.#adapter, this, cut, part.fenceAtEnd, this.#mode());
    this.#segments.push(seg);
    this.#live = seg;
    this.#layoutDirty = true;
    seg.wake();
    return true;
  }

  /** Makes the live segment permanent with all of `md` from its start. */
  #finalizeLive(md: string): void {
    const live = this.#live;
    if (!live) return;
    this.#clearStreamTimer();
    const parts = this.#layout(md, live.start, live.fence, live, true);
    if (parts.length === 0) {
      this.#freezeAs(live, {
        start: live.start,
        end: md.length,
        fence: live.fence,
        fenceAtEnd: live.fence,
        text: '',
        rendered: '',
      });
    } else {
      this.#freezeAs(live, parts[0]!);
      this.#addFrozen(parts.slice(1));
    }
    const last = parts[parts.length - 1];
    this.#nextStart = md.length;
    this.#nextFence = last ? fenceAfter(md, last.start, last.fence) : live.fence;
    this.#live = undefined;
    live.touch();
  }

  /** A native stream nears its maximum age: make it a message and go on in a new stream. */
  #rollStream(segment: Segment): void {
    if (this.#finished || segment !== this.#live || !segment.stream) return;
    const text = this.#text;
    let cut = text.lastIndexOf('\n') + 1;
    if (cut <= segment.start) cut = text.lastIndexOf(' ') + 1;
    if (cut <= segment.start) cut = text.length;
    if (cut <= segment.start) return;
    this.#finalizeLive(text.slice(0, cut));
    this.#stops.push(cut);
    if (text.length > cut) this.#newLive().touch();
  }

  #clearStreamTimer(): void {
    if (this.#streamTimer !== undefined) this.#ctx.clock.clearTimeout(this.#streamTimer);
    this.#streamTimer = undefined;
  }

  /** Resolves when every segment that exists now is delivered (or given up). */
  #settled(): Promise<void> {
    const segments = [...this.#segments];
    if (segments.every((s) => s.settled)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ segments, resolve }));
  }
}
