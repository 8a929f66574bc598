/**
 * A streamed reply, read top to bottom: text is appended (cheap: one string
 * grows), laid out over messages only when a call is about to be made
 * (reply-layout.ts), turned into the call its message needs
 * (reply-calls.ts), and the platform's answer is recorded here. The reply
 * alone changes its segments, plain records (segment.ts); the scheduler sees
 * each one as a slot that returns the call to make.
 */
import type { Button, ChatAdapter } from '../adapter-contract.js';
import { type FenceState, plain, RenderCache } from '../format/index.js';
import type { OutboxContext } from './context.js';
import type { MessagePart } from './message-parts.js';
import { callFor, finalOutput, liveOutput, nextStep, shownPatch } from './reply-calls.js';
import { planFailure } from './reply-failures.js';
import {
  closingNote,
  finalizeLive,
  frozenAs,
  type LayoutContext,
  type LiveSplit,
  layoutLive,
  type ReplyText,
  relayoutFrom,
  rollCut,
} from './reply-layout.js';
import {
  createsMessage,
  onlyCosmetic,
  opensStream,
  StreamAgeTimer,
  segmentReadyAt,
  streamsNatively,
} from './reply-pace.js';
import { DeliveryWaits } from './reply-waits.js';
import type { FailureAction } from './retry.js';
import type { Call, PaceView, Slot } from './scheduler.js';
import { isSettled, newSegment, type Segment, type SegmentOutput } from './segment.js';
import type { DeliveredReply, ReplyStream, StreamOptions } from './types.js';

/** A segment laid out again is delivered anew: its cached form and its failures are forgotten. */
const RELAID: Partial<Segment> = { cosmetic: false, finalOutput: undefined, delivered: false, attempts: 0 };

/** The {@link ReplyStream} of the outbox. */
export class Reply implements ReplyStream {
  readonly #ctx: OutboxContext;
  readonly #chat: string;
  readonly #adapter: ChatAdapter;
  readonly #replyTo: string | undefined;
  readonly #liveButtons: Button[][] | undefined;
  readonly #deleteMessage: (id: string) => void;
  /** The Markdown so far, the closing note, and the checkpoints a relayout keeps. */
  readonly #text: ReplyText = { markdown: '', note: '', finished: false, stops: [] };
  #status: string | undefined;
  #finishing: Promise<DeliveredReply> | undefined;
  readonly #segments: Segment[] = [];
  readonly #slots = new Map<Segment, Slot>();
  /** The segment receiving new text. */
  #live: Segment | undefined;
  /** Where the next live segment starts (after a checkpoint or a stream roll). */
  #nextStart = 0;
  #nextFence: FenceState | undefined;
  /** New segments use the platform's native stream. */
  #native: boolean;
  /** The live segment's rendering, the source offset it covers, and whether text arrived since. */
  readonly #liveText = { rendered: '', end: 0, dirty: true };
  /** Rendered blocks and list items; room for one rich Telegram message of short items (32,768 characters). */
  readonly #cache = new RenderCache(512);
  #firstTextAt: number | undefined;
  readonly #streamAge: StreamAgeTimer;
  readonly #waits = new DeliveryWaits();

  constructor(ctx: OutboxContext, chat: string, options: StreamOptions, deleteMessage: (id: string) => void) {
    this.#ctx = ctx;
    this.#chat = chat;
    this.#adapter = ctx.adapterFor(chat);
    this.#replyTo = options.replyTo;
    this.#liveButtons = options.liveButtons;
    this.#deleteMessage = deleteMessage;
    this.#streamAge = new StreamAgeTimer(ctx.clock);
    this.#native = streamsNatively(this.#adapter, ctx.capabilities(chat));
  }

  get text(): string {
    return this.#text.markdown;
  }

  get messageIds(): readonly string[] {
    return this.#segments.flatMap((s) => (s.id === undefined ? [] : [s.id]));
  }

  // ---- append ---------------------------------------------------------------

  append(delta: string): void {
    if (delta === '' || this.#text.finished) return;
    this.#firstTextAt ??= this.#ctx.clock.now();
    this.#text.markdown += delta;
    this.#liveText.dirty = true;
    const live = this.#live ?? this.#newLive();
    // Until the first message exists, each delta may make it ready (a whole word arrived).
    if (live.id === undefined && !live.handle) this.#touch(live);
    else {
      live.dirty = true;
      this.#ctx.scheduler.wake(this.#slot(live), this.#adapter, true);
    }
  }

  setStatus(line: string | undefined): void {
    if (this.#text.finished || line === this.#status) return;
    this.#status = line;
    if (this.#live) this.#touch(this.#live);
    else if (line !== undefined && !this.#native) this.#touch(this.#newLive());
  }

  async checkpoint(): Promise<void> {
    if (this.#text.finished) {
      await this.#finishing;
      return;
    }
    if (this.#live) {
      this.#finalizeLive(this.#text.markdown);
      this.#text.stops.push(this.#text.markdown.length);
    }
    await this.#waits.wait(this.#segments);
  }

  finish(options: { note?: string } = {}): Promise<DeliveredReply> {
    if (this.#finishing) return this.#finishing;
    this.#text.finished = true;
    this.#status = undefined;
    this.#streamAge.clear();
    const live = this.#live;
    if (options.note) {
      const [from, fence] = live ? [live.start, live.fence] : [this.#nextStart, this.#nextFence];
      this.#text.note = closingNote(this.#text.markdown, from, fence, options.note);
    }
    if (live || this.#text.note !== '' || this.#text.markdown.length > this.#nextStart) {
      if (!live) this.#newLive();
      this.#finalizeLive(this.#text.markdown + this.#text.note);
    }
    for (const s of this.#segments) if (!isSettled(s)) this.#touch(s);
    this.#finishing = this.#waits.wait(this.#segments).then(() => ({
      messageIds: [...this.messageIds],
      text: this.#text.markdown,
    }));
    return this.#finishing;
  }

  // ---- layout -----------------------------------------------------------------

  #layoutContext(): LayoutContext {
    return { caps: this.#ctx.capabilities(this.#chat), cache: this.#cache };
  }

  /** A new live segment where the next text starts (by default, after the last checkpoint). */
  #newLive(start = this.#nextStart, fence = this.#nextFence): Segment {
    const seg = this.#newSegment(start, fence);
    this.#segments.push(seg);
    this.#live = seg;
    this.#liveText.dirty = true;
    return seg;
  }

  /** A segment delivered the way new segments of this reply are (native while the platform streams). */
  #newSegment(start: number, fence: FenceState | undefined): Segment {
    return newSegment(start, fence, this.#native ? 'native' : 'edits');
  }

  /** Makes the live segment permanent with all of `md` from its start; the next text starts after it. */
  #finalizeLive(md: string): void {
    const live = this.#live;
    if (!live) return;
    this.#streamAge.clear();
    const { split, fence } = finalizeLive(md, live, this.#layoutContext());
    this.#applySplit(live, split);
    this.#nextStart = md.length;
    this.#nextFence = fence;
    this.#touch(live);
  }

  /** Lays out the live text when it grew; a split freezes messages and starts a new live one. */
  #layoutLive(): void {
    const live = this.#live;
    if (!this.#liveText.dirty || !live) return;
    const layout = layoutLive(this.#text.markdown, live, this.#layoutContext());
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
    if (split.next) this.#wake(this.#newLive(split.next.start, split.next.fence));
  }

  /** CAPABILITY_CHANGED or MESSAGE_TOO_LONG: lays out every unsettled segment again. */
  #relayout(): void {
    const first = this.#segments.findIndex((s) => !isSettled(s));
    if (first < 0) return;
    if (!this.#ctx.capabilities(this.#chat).nativeStream) this.#disableNative();
    const targets = this.#segments.slice(first).filter((s) => !s.abandoned);
    const { placed, surplus } = relayoutFrom(this.#text, targets, this.#layoutContext());
    this.#segments.splice(first);
    this.#live = undefined;
    for (const seg of surplus) {
      // More messages than the new layout needs: remove the surplus.
      seg.abandoned = true;
      if (seg.id !== undefined) this.#deleteMessage(seg.id);
    }
    for (const { reuse, part, final } of placed) {
      const seg = reuse ? Object.assign(reuse, RELAID) : this.#newSegment(part.start, part.fence);
      Object.assign(seg, { start: part.start, fence: part.fence, dirty: true });
      this.#segments.push(seg);
      if (final) Object.assign(seg, frozenAs(part));
      else {
        Object.assign(seg, { final: false, end: undefined });
        this.#live = seg;
        this.#liveText.rendered = part.rendered;
        this.#liveText.end = this.#text.markdown.length;
      }
    }
    const last = placed.at(-1)?.part;
    if (!this.#live && !this.#text.finished && last) {
      this.#nextStart = last.end;
      this.#nextFence = last.fenceAtEnd;
    }
    this.#liveText.dirty = this.#live !== undefined;
    this.#waits.cover(this.#segments);
    for (const s of this.#segments) if (!isSettled(s)) this.#touch(s);
    this.#waits.check();
  }

  /** No native stream here (any more): segments not streaming yet go out as edited messages. */
  #disableNative(): void {
    this.#native = false;
    for (const s of this.#segments) {
      if (s.delivery === 'native' && !s.handle) {
        s.delivery = 'edits';
        s.finalOutput = undefined;
        this.#touch(s);
      }
    }
    this.#liveText.dirty = true;
  }

  /** New frozen segments for `parts`, in order. */
  #addFrozen(parts: readonly MessagePart[]): void {
    for (const part of parts) {
      const seg = this.#newSegment(part.start, part.fence);
      Object.assign(seg, frozenAs(part));
      this.#segments.push(seg);
      this.#wake(seg);
    }
  }

  /** What `segment` should show now, and the source offset a live output covers. */
  #output(segment: Segment): { out: SegmentOutput | null; end: number | undefined } {
    const caps = this.#ctx.capabilities(this.#chat);
    if (!segment.final) {
      if (segment !== this.#live) return { out: null, end: undefined };
      this.#layoutLive();
    }
    if (segment.final) {
      if (segment.finalOutput === undefined) segment.finalOutput = finalOutput(segment, caps, this.#cache);
      return { out: segment.finalOutput, end: undefined };
    }
    const out = liveOutput(segment, this.#liveText.rendered, this.#status, this.#liveButtons, caps);
    return { out, end: this.#liveText.end };
  }

  // ---- call -------------------------------------------------------------------

  /** The scheduler's view of a segment. */
  #slot(segment: Segment): Slot {
    let slot = this.#slots.get(segment);
    if (!slot) {
      slot = {
        chat: this.#chat,
        kind: 'text',
        readyAt: (now, pace) => this.#readyAt(segment, now, pace),
        next: () => this.#next(segment),
        failed: (action, err, call) => this.#failed(segment, action, err, call),
        creates: () => createsMessage(segment),
        deferrable: () => onlyCosmetic(segment),
        unbudgeted: () => opensStream(segment),
      };
      this.#slots.set(segment, slot);
    }
    return slot;
  }

  #wake(segment: Segment): void {
    this.#ctx.scheduler.wake(this.#slot(segment), this.#adapter);
  }

  #touch(segment: Segment): void {
    segment.dirty = true;
    this.#wake(segment);
  }

  #readyAt(segment: Segment, now: number, pace: PaceView): number {
    const { markdown } = this.#text;
    const caps = this.#ctx.capabilities(this.#chat);
    const r = { chat: this.#chat, segments: this.#segments, caps, markdown, keys: this.#ctx };
    return segmentReadyAt(segment, now, pace, { ...r, status: this.#status, firstTextAt: this.#firstTextAt });
  }

  /** The call `segment` needs now: its output laid out from the newest text, then the step to show it. */
  #next(segment: Segment): Call | undefined {
    if (isSettled(segment)) return undefined;
    const wasLive = !segment.final;
    const { out, end } = this.#output(segment);
    if (wasLive && segment.cosmetic) {
      // Laying out the live text just ended this message within the text it
      // already shows: its remaining edit is cosmetic, so it is queued again
      // once this pass of the scheduler is over, behind the new message.
      queueMicrotask(() => this.#wake(segment));
      return undefined;
    }
    const step = nextStep(segment, out, this.#replyTo);
    // A stream start shows nothing yet: the text still has to go out after it.
    segment.dirty = step.kind === 'start';
    if (step.kind === 'none') {
      Object.assign(segment, step.patch);
      this.#waits.check();
      return undefined;
    }
    const startedAt = this.#ctx.clock.now();
    const basis = {
      chat: this.#chat,
      adapter: this.#adapter,
      keys: this.#ctx,
      attempt: segment.attempts + 1,
      plain: segment.plain || out?.format === plain,
    };
    return callFor(step, basis, {
      record: (patch) => {
        Object.assign(segment, patch);
        if (patch.handle) this.#streamStarted(segment, startedAt);
        this.#waits.check();
      },
      shown: () => this.#shown(segment, out!, end),
    });
  }

  // ---- answer -----------------------------------------------------------------

  /** The platform shows `out` (up to source offset `end`). */
  #shown(segment: Segment, out: SegmentOutput, end: number | undefined): void {
    if (out.buttons && out.buttons.length > 0 && !segment.hadButtons) {
      // The reply may have been frozen while this call was on its way (a slow
      // send): its final form, cached then without buttons, must now remove them.
      Object.assign(segment, { hadButtons: true, finalOutput: undefined });
    }
    const wanted = segment.final && !segment.handle ? this.#output(segment).out : null;
    Object.assign(segment, shownPatch(segment, out, end, wanted));
    this.#waits.check();
  }

  /** A call failed; `action` comes from the retry table (retry.ts), its meaning here from reply-failures.ts. */
  #failed(
    segment: Segment,
    action: Exclude<FailureAction, { kind: 'pause' }>,
    err: unknown,
    call: Call | undefined,
  ): void {
    const plan = planFailure(segment, action, call?.kind, this.#ctx.clock.now());
    Object.assign(segment, plan.patch);
    const { log } = plan;
    if (log) this.#ctx.logger[log.level]({ err, chat: this.#chat, attempts: segment.attempts }, log.message);
    if (plan.shrink) this.#ctx.shrink(this.#chat);
    if (plan.followUp === 'relayout') this.#relayout();
    else if (plan.followUp === 'edits') this.#disableNative();
    if (plan.changed) this.#waits.check();
  }

  // ---- native stream age -------------------------------------------------------

  /** A native stream was opened at `at`: it becomes a message before the platform's maximum age. */
  #streamStarted(segment: Segment, at: number): void {
    if (segment !== this.#live) return;
    this.#streamAge.start(at, this.#ctx.capabilities(this.#chat), () => this.#rollStream(segment));
  }

  /** A native stream nears its maximum age: make it a message and go on in a new stream. */
  #rollStream(segment: Segment): void {
    if (this.#text.finished || segment !== this.#live || !segment.handle) return;
    const text = this.#text.markdown;
    const cut = rollCut(text, segment.start);
    if (cut === undefined) return;
    this.#finalizeLive(text.slice(0, cut));
    this.#text.stops.push(cut);
    if (text.length > cut) this.#touch(this.#newLive());
  }
}
