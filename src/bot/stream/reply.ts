/**
 * A streamed reply: text deltas accumulate in one string; the reply decides
 * which part of it each message (segment) holds, and the segments' slots make
 * the calls when the scheduler allows. Layout happens only when a call is
 * about to be made, so append() stays O(delta) and rendering happens at most
 * once per edit interval.
 */
import type { TimerHandle } from '../../clock.js';
import {
  type FenceState,
  fenceStateAt,
  layoutMarkdown,
  nextSplit,
  RenderCache,
  renderPart,
  renderStatusLine,
} from '../format/index.js';
import type { Button, ChatAdapter, Dialect } from '../types.js';
import type { OutboxContext } from './context.js';
import { type ReplyLayout, Segment, type SegmentOutput } from './segment.js';
import type { DeliveredReply, ReplyStream, StreamOptions } from './types.js';

/** Live edits use at most 1 / BUDGET_HEADROOM of a chat budget. */
const BUDGET_HEADROOM = 1.1;

/** Room kept free for the status line in a live message. */
const STATUS_RESERVE = 120;

interface Part {
  start: number;
  end: number;
  fence: FenceState | undefined;
  fenceAtEnd: FenceState | undefined;
  text: string;
  rendered: string;
}

/**
 * The fence open after all of `md` (from `start`), counting its last line as
 * complete: at a message boundary that line is as finished as it will get.
 */
function fenceAfter(md: string, start: number, fence: FenceState | undefined): FenceState | undefined {
  return fenceStateAt(`${md}\n`, start, fence, md.length + 1);
}

/**
 * A message boundary at or a little before `end`: a paragraph or line break,
 * else `end` itself when it falls between words, else the last space.
 */
function cutNear(text: string, start: number, end: number): number {
  const floor = Math.max(start + 1, end - 200);
  const para = text.lastIndexOf('\n\n', end - 2);
  if (para >= floor) return para + 2;
  const line = text.lastIndexOf('\n', end - 1);
  if (line >= floor) return line + 1;
  if (/\s/.test(text[end] ?? ' ') || /\s/.test(text[end - 1] ?? '')) return end;
  const space = text.lastIndexOf(' ', end - 1);
  return space >= floor ? space + 1 : end;
}

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
    this.#text += delta;
    this.#layoutDirty = true;
    (this.#live ?? this.#newLive()).grow();
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
    const caps = this.#ctx.capabilities(this.chat);
    // Spread live edits over a chat budget instead of bursting it and then going
    // quiet, leaving a tenth of it for new messages, approvals and notices.
    const spread = caps.budget ? (caps.budget.windowMs / caps.budget.count) * BUDGET_HEADROOM : 0;
    return Math.max(caps.minEditIntervalMs, spread);
  }

  blocked(segment: Segment): boolean {
    if (segment.id !== undefined || segment.stream) return false;
    for (const s of this.#segments) {
      if (s === segment) return false;
      if (!s.settled && s.id === undefined && !s.stream) return true;
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
    const reserve =
      final || like.mode === 'stream' ? 0 : Math.min(STATUS_RESERVE, Math.floor(caps.maxMessageLength / 10));
    const maxLength = caps.maxMessageLength - reserve;
    const parts: Part[] = [];
    if (this.#raw(like)) {
      let start = from;
      let f = fence;
      while (start < md.length) {
        const p = nextSplit(md, start, f, maxLength);
        parts.push({ start, end: p.end, fence: f, fenceAtEnd: p.fenceAtEnd, text: p.text, rendered: p.text });
        start = p.end;
        f = p.fenceAtEnd;
      }
      return parts;
    }
    let f = fence;
    const options = {
      dialect: this.#dialect(like),
      maxLength,
      from,
      fence,
      partial: !final,
      cache: this.#cache,
    };
    for (const p of layoutMarkdown(md, options)) {
      parts.push({
        start: p.start,
        end: p.end,
        fence: f,
        fenceAtEnd: p.fenceAtEnd,
        text: p.text,
        rendered: p.rendered,
      });
      f = p.fenceAtEnd;
    }
    return parts;
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
    const text = this.#text;
    const cut = cutNear(text, live.start, shown);
    if (cut <= live.start) return false;
    const fenceAtCut = fenceStateAt(text, live.start, live.fence, cut);
    const prefix = live.fence ? `${live.fence.indent}${live.fence.marker}${live.fence.info}\n` : '';
    const suffix = fenceAtCut
      ? `${text[cut - 1] === '\n' ? '' : '\n'}${fenceAtCut.indent}${fenceAtCut.marker}`
      : '';
    const partText = prefix + text.slice(live.start, cut) + suffix;
    const rendered = renderPart(partText, this.#dialect(live), false);
    if (rendered.length > caps.maxMessageLength) return false;
    this.#freezeAs(live, {
      start: live.start,
      end: cut,
      fence: live.fence,
      fenceAtEnd: fenceAtCut,
      text: partText,
      rendered,
    });
    live.cosmetic = true;
    const seg = new Segment(this.#ctx, this.#adapter, this, cut, fenceAtCut, this.#mode());
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
