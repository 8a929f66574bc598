/**
 * The layout half of a streamed reply: which part of the reply's text each
 * message (segment) holds, and re-splitting when text outgrows a message, a
 * message is made permanent, or the platform's capabilities change. The
 * reply's own API (append, finish, pacing hooks) is in reply.ts.
 */

import type { Button, ChatAdapter, Dialect } from '../adapter-contract.js';
import { type FenceState, RenderCache, renderPart, renderStatusLine } from '../format/index.js';
import type { OutboxContext } from './context.js';
import { cutNear, fenceAfter, layoutParts, type Part, partUntil } from './reply-parts.js';
import { type ReplyLayout, Segment, type SegmentOutput } from './segment.js';

/** Segments of a reply and how its text is laid out over them. */
export abstract class ReplySegments implements ReplyLayout {
  readonly chat: string;
  abstract readonly replyTo: string | undefined;
  /** The full Markdown appended so far. */
  protected markdown = '';
  /** The closing note (finish), rendered as Markdown. */
  protected note = '';
  protected status: string | undefined;
  protected finished = false;
  protected readonly segments: Segment[] = [];
  protected live: Segment | undefined;
  /** Where the next live segment starts (after a checkpoint or a stream roll). */
  protected nextStart = 0;
  protected nextFence: FenceState | undefined;
  /** Offsets where a message was made permanent on purpose; a relayout keeps them. */
  protected readonly stops: number[] = [];
  protected native: boolean;
  protected layoutDirty = true;
  protected readonly ctx: OutboxContext;
  protected readonly adapter: ChatAdapter;
  #liveRendered = '';
  /** Source offset the live rendering covers. */
  #liveEnd = 0;
  /** Renderings of finished block groups of the live text. */
  readonly #cache = new RenderCache(64);
  readonly #liveButtons: Button[][] | undefined;
  readonly #deleteMessage: (id: string) => void;

  constructor(
    ctx: OutboxContext,
    chat: string,
    liveButtons: Button[][] | undefined,
    deleteMessage: (id: string) => void,
  ) {
    this.ctx = ctx;
    this.chat = chat;
    this.#liveButtons = liveButtons;
    this.#deleteMessage = deleteMessage;
    this.adapter = ctx.adapterFor(chat);
    const a = this.adapter;
    this.native =
      ctx.capabilities(chat).nativeStream &&
      typeof a.startStream === 'function' &&
      typeof a.updateStream === 'function' &&
      typeof a.finishStream === 'function';
  }

  /** A native stream's age timer; cleared when its segment is made permanent. */
  protected abstract clearStreamTimer(): void;
  abstract liveIntervalMs(): number;
  abstract blocked(segment: Segment): boolean;
  abstract firstWordAt(segment: Segment, now: number): number;
  abstract streamStarted(segment: Segment, at: number): void;
  abstract changed(segment: Segment): void;
  /**
   * A relayout replaced the segments: whoever waits for delivery (finish)
   * must now also wait for the parts it added. Called before any of them is
   * queued, so no wait can end on the old layout.
   */
  protected abstract segmentsReplaced(): void;

  output(segment: Segment): SegmentOutput | null {
    if (segment.final) return this.#finalOutput(segment);
    if (segment !== this.live) return null;
    this.#relayoutLive();
    if (segment.final) return this.#finalOutput(segment);
    const dialect = this.#dialect(segment);
    let text = this.#liveRendered;
    if (this.status !== undefined && segment.mode === 'edit') {
      const line = renderStatusLine(this.status, dialect);
      if (line !== '') text = text.trim() === '' ? line : `${text}\n\n${line}`;
    }
    if (text.trim() === '') return null;
    segment.pendingEnd = this.#liveEnd;
    const buttons = this.#liveButtons ?? (segment.hadButtons ? [] : undefined);
    return { text, format: dialect, ...(buttons ? { buttons } : {}) };
  }

  disableNative(): void {
    this.native = false;
    for (const s of this.segments) {
      if (s.mode === 'stream' && !s.stream) {
        s.mode = 'edit';
        s.finalOutput = undefined;
        s.touch();
      }
    }
    this.layoutDirty = true;
  }

  relayout(): void {
    const first = this.segments.findIndex((s) => !s.settled);
    if (first < 0) return;
    if (!this.ctx.capabilities(this.chat).nativeStream) this.disableNative();
    const targets = this.segments.slice(first).filter((s) => !s.abandoned);
    const head = targets[0]!;
    const parts: Part[] = [];
    let from = head.start;
    let fence = head.fence;
    for (const stop of this.stops) {
      if (stop <= from) continue;
      const md = this.markdown.slice(0, stop);
      const region = this.#layout(md, from, fence, head, true);
      parts.push(...region);
      fence = fenceAfter(md, from, fence);
      from = stop;
    }
    const tail = this.finished
      ? this.#layout(this.markdown + this.note, from, fence, head, true)
      : this.#layout(this.markdown, from, fence, head, false);
    const finalCount = parts.length + (this.finished ? tail.length : Math.max(0, tail.length - 1));
    parts.push(...tail);
    this.segments.splice(first);
    this.live = undefined;
    for (let i = 0; i < Math.max(parts.length, targets.length); i++) {
      const part = parts[i];
      let seg = targets[i];
      if (!part) {
        // More messages than the new layout needs: remove the surplus.
        seg!.abandoned = true;
        if (seg!.id !== undefined) this.#deleteMessage(seg!.id);
        continue;
      }
      if (!seg) seg = this.#segment(part.start, part.fence);
      seg.reset();
      seg.start = part.start;
      seg.fence = part.fence;
      this.segments.push(seg);
      if (i < finalCount) this.#freezeAs(seg, part);
      else {
        seg.final = false;
        seg.end = undefined;
        this.live = seg;
        this.#liveRendered = part.rendered;
        this.#liveEnd = this.markdown.length;
      }
    }
    if (!this.live && !this.finished) {
      const last = parts[parts.length - 1];
      if (last) {
        this.nextStart = last.end;
        this.nextFence = last.fenceAtEnd;
      }
    }
    this.layoutDirty = this.live !== undefined;
    this.segmentsReplaced();
    for (const s of this.segments) if (!s.settled) s.touch();
    this.changed(head);
  }

  /** A new live segment where the next text starts. */
  protected newLive(): Segment {
    const seg = this.#segment(this.nextStart, this.nextFence);
    this.segments.push(seg);
    this.live = seg;
    this.layoutDirty = true;
    return seg;
  }

  /** Makes the live segment permanent with all of `md` from its start. */
  protected finalizeLive(md: string): void {
    const live = this.live;
    if (!live) return;
    this.clearStreamTimer();
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
    this.nextStart = md.length;
    this.nextFence = last ? fenceAfter(md, last.start, last.fence) : live.fence;
    this.live = undefined;
    live.touch();
  }

  #segment(start: number, fence: FenceState | undefined): Segment {
    return new Segment(this.ctx, this.adapter, this, start, fence, this.native ? 'stream' : 'edit');
  }

  #dialect(segment: Segment): Dialect {
    return segment.plain ? 'plain' : this.ctx.capabilities(this.chat).dialect;
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
    const caps = this.ctx.capabilities(this.chat);
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

  /** New frozen segments for `parts`, in order. */
  #addFrozen(parts: Part[]): void {
    for (const part of parts) {
      const seg = this.#segment(part.start, part.fence);
      this.#freezeAs(seg, part);
      this.segments.push(seg);
      seg.wake();
    }
  }

  /** Splits the live text; everything but its last part becomes permanent messages. */
  #relayoutLive(): void {
    if (!this.layoutDirty || !this.live) return;
    this.layoutDirty = false;
    const live = this.live;
    const parts = this.#layout(this.markdown, live.start, live.fence, live, false);
    if (parts.length === 0) {
      this.#liveRendered = '';
      return;
    }
    if (parts.length > 1 && this.#freezeShown(live)) return;
    const last = parts[parts.length - 1]!;
    this.#liveEnd = this.markdown.length;
    if (parts.length > 1) {
      this.#freezeAs(live, parts[0]!);
      this.#addFrozen(parts.slice(1, -1));
      const seg = this.#segment(last.start, last.fence);
      this.segments.push(seg);
      this.live = seg;
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
    const caps = this.ctx.capabilities(this.chat);
    if (shown - live.start < caps.maxMessageLength / 3) return false;
    const cut = cutNear(this.markdown, live.start, shown);
    if (cut <= live.start) return false;
    const part = partUntil(
      this.markdown,
      live.start,
      live.fence,
      cut,
      this.#dialect(live),
      caps.maxMessageLength,
    );
    if (!part) return false;
    this.#freezeAs(live, part);
    live.cosmetic = true;
    const seg = this.#segment(cut, part.fenceAtEnd);
    this.segments.push(seg);
    this.live = seg;
    this.layoutDirty = true;
    seg.wake();
    return true;
  }
}
