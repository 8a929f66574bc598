/**
 * Which messages a streamed reply's text is laid out over: the reply's
 * segments in order, the live one receiving new text, where the next one
 * starts, and whether new ones stream natively. It applies the layouts of
 * reply-layout.ts to the segments; how a segment reaches the platform (its
 * slot, its calls, the answers) is the reply's business (reply.ts), told
 * through {@link SegmentWaker} whenever a segment has something to show.
 */
import type { Button, ChatCapabilities } from '../adapter-contract.js';
import { type FenceState, RenderCache } from '../format/index.js';
import type { MessagePart } from './message-parts.js';
import { finalOutput, liveOutput } from './reply-calls.js';
import {
  closingNote,
  finalizeLive,
  frozenAs,
  type LayoutContext,
  type LiveSplit,
  layoutLive,
  type ReplyText,
  relayoutFrom,
} from './reply-layout.js';
import { isSettled, newSegment, type Segment, type SegmentOutput } from './segment.js';

/** A segment laid out again is delivered anew: its cached form and its failures are forgotten. */
const RELAID: Partial<Segment> = { cosmetic: false, finalOutput: undefined, delivered: false, attempts: 0 };

/** How the segments tell the reply a segment has something to show. */
export interface SegmentWaker {
  /** Queue `segment` with the scheduler. */
  wake(segment: Segment): void;
  /** Mark `segment` changed, then queue it. */
  touch(segment: Segment): void;
}

/** What the segments of one reply are laid out with. */
export interface ReplySegmentsOptions {
  /** The chat's capabilities now (they change: a MESSAGE_TOO_LONG shrinks the length). */
  caps(): ChatCapabilities;
  /** New segments use the platform's native stream. */
  native: boolean;
  waker: SegmentWaker;
  /** Removes a message a relayout no longer needs. */
  deleteMessage(id: string): void;
}

/** The segments of one reply and the text they are laid out from. */
export class ReplySegments {
  /** The Markdown so far, the closing note, and the checkpoints a relayout keeps. */
  readonly text: ReplyText = { markdown: '', note: '', finished: false, stops: [] };
  readonly list: Segment[] = [];
  readonly #o: ReplySegmentsOptions;
  /** The segment receiving new text. */
  #live: Segment | undefined;
  /** Where the next live segment starts (after a checkpoint or a stream roll). */
  #nextStart = 0;
  #nextFence: FenceState | undefined;
  #native: boolean;
  /** The live segment's rendering, the source offset it covers, and whether text arrived since. */
  readonly #liveText = { rendered: '', end: 0, dirty: true };
  /** Rendered blocks and list items; room for one rich Telegram message of short items (32,768 characters). */
  readonly #cache = new RenderCache(512);

  constructor(options: ReplySegmentsOptions) {
    this.#o = options;
    this.#native = options.native;
  }

  /** The segment receiving new text, if any. */
  get live(): Segment | undefined {
    return this.#live;
  }

  /** New segments stream natively (until the platform says it cannot). */
  get native(): boolean {
    return this.#native;
  }

  /** Adds `delta` to the text; returns the live segment it goes into (a new one after a checkpoint). */
  append(delta: string): Segment {
    this.text.markdown += delta;
    this.#liveText.dirty = true;
    return this.#live ?? this.newLive();
  }

  /** A new live segment where the next text starts (by default, after the last checkpoint). */
  newLive(start = this.#nextStart, fence = this.#nextFence): Segment {
    const seg = this.#newSegment(start, fence);
    this.list.push(seg);
    this.#live = seg;
    this.#liveText.dirty = true;
    return seg;
  }

  /**
   * The text is finished: `note` laid out after it, and everything not yet
   * in a message made permanent.
   */
  finish(note: string | undefined): void {
    const live = this.#live;
    if (note) {
      const [from, fence] = live ? [live.start, live.fence] : [this.#nextStart, this.#nextFence];
      this.text.note = closingNote(this.text.markdown, from, fence, note);
    }
    if (live || this.text.note !== '' || this.text.markdown.length > this.#nextStart) {
      if (!live) this.newLive();
      this.finalizeLive(this.text.markdown + this.text.note);
    }
  }

  /** Makes the live segment permanent with all of `md` from its start; the next text starts after it. */
  finalizeLive(md: string): void {
    const live = this.#live;
    if (!live) return;
    const { split, fence } = finalizeLive(md, live, this.#layoutContext());
    this.#applySplit(live, split);
    this.#nextStart = md.length;
    this.#nextFence = fence;
    this.#o.waker.touch(live);
  }

  /**
   * CAPABILITY_CHANGED or MESSAGE_TOO_LONG: lays out every unsettled segment
   * again. True when there was one: the caller then queues them.
   */
  relayout(): boolean {
    const first = this.list.findIndex((s) => !isSettled(s));
    if (first < 0) return false;
    if (!this.#o.caps().nativeStream) this.disableNative();
    const targets = this.list.slice(first).filter((s) => !s.abandoned);
    const { placed, surplus } = relayoutFrom(this.text, targets, this.#layoutContext());
    this.list.splice(first);
    this.#live = undefined;
    for (const seg of surplus) {
      // More messages than the new layout needs: remove the surplus.
      seg.abandoned = true;
      if (seg.id !== undefined) this.#o.deleteMessage(seg.id);
    }
    for (const { reuse, part, final } of placed) {
      const seg = reuse ? Object.assign(reuse, RELAID) : this.#newSegment(part.start, part.fence);
      Object.assign(seg, { start: part.start, fence: part.fence, dirty: true });
      this.list.push(seg);
      if (final) Object.assign(seg, frozenAs(part));
      else {
        Object.assign(seg, { final: false, end: undefined });
        this.#live = seg;
        this.#liveText.rendered = part.rendered;
        this.#liveText.end = this.text.markdown.length;
      }
    }
    const last = placed.at(-1)?.part;
    if (!this.#live && !this.text.finished && last) {
      this.#nextStart = last.end;
      this.#nextFence = last.fenceAtEnd;
    }
    this.#liveText.dirty = this.#live !== undefined;
    return true;
  }

  /** No native stream here (any more): segments not streaming yet go out as edited messages. */
  disableNative(): void {
    this.#native = false;
    for (const s of this.list) {
      if (s.delivery === 'native' && !s.handle) {
        s.delivery = 'edits';
        s.finalOutput = undefined;
        this.#o.waker.touch(s);
      }
    }
    this.#liveText.dirty = true;
  }

  /**
   * What `segment` should show now, and the source offset a live output
   * covers; the live one carries the status line and `liveButtons`.
   */
  output(
    segment: Segment,
    status: string | undefined,
    liveButtons: Button[][] | undefined,
  ): { out: SegmentOutput | null; end: number | undefined } {
    const caps = this.#o.caps();
    if (!segment.final) {
      if (segment !== this.#live) return { out: null, end: undefined };
      this.#layoutLive();
    }
    if (segment.final) {
      if (segment.finalOutput === undefined) segment.finalOutput = finalOutput(segment, caps, this.#cache);
      return { out: segment.finalOutput, end: undefined };
    }
    const out = liveOutput(segment, this.#liveText.rendered, status, liveButtons, caps);
    return { out, end: this.#liveText.end };
  }

  #layoutContext(): LayoutContext {
    return { caps: this.#o.caps(), cache: this.#cache };
  }

  /** A segment delivered the way new segments of this reply are (native while the platform streams). */
  #newSegment(start: number, fence: FenceState | undefined): Segment {
    return newSegment(start, fence, this.#native ? 'native' : 'edits');
  }

  /** Lays out the live text when it grew; a split freezes messages and starts a new live one. */
  #layoutLive(): void {
    const live = this.#live;
    if (!this.#liveText.dirty || !live) return;
    const layout = layoutLive(this.text.markdown, live, this.#layoutContext());
    if (layout.split) this.#applySplit(live, layout.split);
    this.#liveText.dirty = layout.again === true;
    this.#liveText.rendered = layout.rendered;
    if (layout.end !== undefined) this.#liveText.end = layout.end;
  }

  /** Freezes `live` with the split's part, adds its permanent parts, and the new live segment. */
  #applySplit(live: Segment, split: LiveSplit): void {
    Object.assign(live, frozenAs(split.keep));
    live.cosmetic = split.cosmetic;
    this.#addFrozen(split.frozen);
    this.#live = undefined;
    if (split.next) this.#o.waker.wake(this.newLive(split.next.start, split.next.fence));
  }

  /** New frozen segments for `parts`, in order. */
  #addFrozen(parts: readonly MessagePart[]): void {
    for (const part of parts) {
      const seg = this.#newSegment(part.start, part.fence);
      Object.assign(seg, frozenAs(part));
      this.list.push(seg);
      this.#o.waker.wake(seg);
    }
  }
}
