/**
 * A streamed reply, read top to bottom: text is appended (cheap: one string
 * grows), laid out over messages only when a call is about to be made
 * (reply-layout.ts), turned into the call its message needs
 * (reply-calls.ts), and the platform's answer is recorded here. The reply
 * alone changes its segments, plain records (segment.ts); the scheduler sees
 * each one as a slot that returns the call to make.
 */
import type { TimerHandle } from '../../clock.js';
import type { Button, ChatAdapter } from '../adapter-contract.js';
import { type FenceState, RenderCache } from '../format/index.js';
import type { OutboxContext } from './context.js';
import { fenceAfter, liveIntervalMs, type MessagePart } from './message-parts.js';
import { callFor, finalOutput, liveOutput, nextStep, type SegmentStep } from './reply-calls.js';
import { planFailure } from './reply-failures.js';
import { closingNote, type LayoutContext, layoutFrom, relayoutFrom, shownPart } from './reply-layout.js';
import { createsMessage, onlyCosmetic, opensStream, segmentReadyAt } from './reply-pace.js';
import type { FailureAction } from './retry.js';
import type { Call, PaceView, Slot } from './scheduler.js';
import { isSettled, newSegment, type Segment, type SegmentOutput, signature } from './segment.js';
import type { DeliveredReply, ReplyStream, StreamOptions } from './types.js';

/** The {@link ReplyStream} of the outbox. */
export class Reply implements ReplyStream {
  readonly #ctx: OutboxContext;
  readonly #chat: string;
  readonly #adapter: ChatAdapter;
  readonly #replyTo: string | undefined;
  readonly #liveButtons: Button[][] | undefined;
  readonly #deleteMessage: (id: string) => void;
  #markdown = '';
  /** The closing note (finish), as Markdown. */
  #note = '';
  #status: string | undefined;
  #finished = false;
  #finishing: Promise<DeliveredReply> | undefined;
  readonly #segments: Segment[] = [];
  readonly #slots = new Map<Segment, Slot>();
  /** The segment receiving new text. */
  #live: Segment | undefined;
  /** Where the next live segment starts (after a checkpoint or a stream roll). */
  #nextStart = 0;
  #nextFence: FenceState | undefined;
  /** Offsets where a message was made permanent on purpose; a relayout keeps them. */
  readonly #stops: number[] = [];
  /** New segments use the platform's native stream. */
  #native: boolean;
  /** Text arrived since the live segment was last laid out. */
  #layoutDirty = true;
  #liveRendered = '';
  /** Source offset the live rendering covers. */
  #liveEnd = 0;
  readonly #cache = new RenderCache(64);
  #firstTextAt: number | undefined;
  /** A native stream's age timer. */
  #streamTimer: TimerHandle | undefined;
  #waiters: { segments: Segment[]; resolve: () => void }[] = [];

  constructor(ctx: OutboxContext, chat: string, options: StreamOptions, deleteMessage: (id: string) => void) {
    this.#ctx = ctx;
    this.#chat = chat;
    this.#adapter = ctx.adapterFor(chat);
    this.#replyTo = options.replyTo;
    this.#liveButtons = options.liveButtons;
    this.#deleteMessage = deleteMessage;
    const a = this.#adapter;
    this.#native =
      ctx.capabilities(chat).nativeStream &&
      typeof a.startStream === 'function' &&
      typeof a.updateStream === 'function' &&
      typeof a.finishStream === 'function';
  }

  get text(): string {
    return this.#markdown;
  }

  get messageIds(): readonly string[] {
    const ids: string[] = [];
    for (const s of this.#segments) if (s.id !== undefined) ids.push(s.id);
    return ids;
  }

  // ---- append ---------------------------------------------------------------

  append(delta: string): void {
    if (delta === '' || this.#finished) return;
    this.#firstTextAt ??= this.#ctx.clock.now();
    this.#markdown += delta;
    this.#layoutDirty = true;
    const live = this.#live ?? this.#newLive();
    // Until the first message exists, each delta may make it ready (a whole word arrived).
    if (live.id === undefined && !live.handle) this.#touch(live);
    else {
      live.dirty = true;
      this.#ctx.scheduler.wake(this.#slot(live), this.#adapter, true);
    }
  }

  setStatus(line: string | undefined): void {
    if (this.#finished || line === this.#status) return;
    this.#status = line;
    if (this.#live) this.#touch(this.#live);
    else if (line !== undefined && !this.#native) this.#touch(this.#newLive());
  }

  async checkpoint(): Promise<void> {
    if (this.#finished) {
      await this.#finishing;
      return;
    }
    if (this.#live) {
      this.#finalizeLive(this.#markdown);
      this.#stops.push(this.#markdown.length);
    }
    await this.#settled();
  }

  finish(options: { note?: string } = {}): Promise<DeliveredReply> {
    if (this.#finishing) return this.#finishing;
    this.#finished = true;
    this.#status = undefined;
    this.#clearStreamTimer();
    const live = this.#live;
    if (options.note) {
      const [from, fence] = live ? [live.start, live.fence] : [this.#nextStart, this.#nextFence];
      this.#note = closingNote(this.#markdown, from, fence, options.note);
    }
    if (live || this.#note !== '' || this.#markdown.length > this.#nextStart) {
      if (!live) this.#newLive();
      this.#finalizeLive(this.#markdown + this.#note);
    }
    for (const s of this.#segments) if (!isSettled(s)) this.#touch(s);
    this.#finishing = this.#settled().then(() => ({
      messageIds: [...this.messageIds],
      text: this.#markdown,
    }));
    return this.#finishing;
  }

  // ---- layout -----------------------------------------------------------------

  #layoutContext(): LayoutContext {
    return { caps: this.#ctx.capabilities(this.#chat), cache: this.#cache };
  }

  /** A new live segment where the next text starts. */
  #newLive(): Segment {
    const seg = this.#newSegment(this.#nextStart, this.#nextFence);
    this.#segments.push(seg);
    this.#live = seg;
    this.#layoutDirty = true;
    return seg;
  }

  /** A segment delivered the way new segments of this reply are (native while the platform streams). */
  #newSegment(start: number, fence: FenceState | undefined): Segment {
    return newSegment(start, fence, this.#native ? 'native' : 'edits');
  }

  /** Makes the live segment permanent with all of `md` from its start. */
  #finalizeLive(md: string): void {
    const live = this.#live;
    if (!live) return;
    this.#clearStreamTimer();
    const parts = layoutFrom(md, live.start, live.fence, live, true, this.#layoutContext());
    const [first, ...rest] = parts;
    this.#freezeAs(
      live,
      first ?? {
        start: live.start,
        end: md.length,
        fence: live.fence,
        fenceAtEnd: live.fence,
        text: '',
        rendered: '',
      },
    );
    this.#addFrozen(rest);
    const last = parts.at(-1);
    this.#nextStart = md.length;
    this.#nextFence = last ? fenceAfter(md, last.start, last.fence) : live.fence;
    this.#live = undefined;
    this.#touch(live);
  }

  /** Splits the live text; everything but its last part becomes permanent messages. */
  #layoutLive(): void {
    const live = this.#live;
    if (!this.#layoutDirty || !live) return;
    this.#layoutDirty = false;
    const parts = layoutFrom(this.#markdown, live.start, live.fence, live, false, this.#layoutContext());
    if (parts.length === 0) {
      this.#liveRendered = '';
      return;
    }
    if (parts.length > 1 && this.#freezeShown(live)) return;
    const last = parts.at(-1)!;
    this.#liveEnd = this.#markdown.length;
    if (parts.length > 1) {
      this.#freezeAs(live, parts[0]!);
      this.#addFrozen(parts.slice(1, -1));
      const seg = this.#newSegment(last.start, last.fence);
      this.#segments.push(seg);
      this.#live = seg;
      this.#wake(seg);
    }
    this.#liveRendered = last.rendered;
  }

  /**
   * The live text outgrew its edited message: end the message within the
   * text it already shows (reply-layout.ts), so its last edit is cosmetic and
   * can give way to the next message. False when it has shown too little.
   */
  #freezeShown(live: Segment): boolean {
    const part = shownPart(this.#markdown, live, this.#ctx.capabilities(this.#chat));
    if (!part) return false;
    this.#freezeAs(live, part);
    live.cosmetic = true;
    const seg = this.#newSegment(part.end, part.fenceAtEnd);
    this.#segments.push(seg);
    this.#live = seg;
    this.#layoutDirty = true;
    this.#wake(seg);
    return true;
  }

  /** CAPABILITY_CHANGED or MESSAGE_TOO_LONG: lays out every unsettled segment again. */
  #relayout(): void {
    const first = this.#segments.findIndex((s) => !isSettled(s));
    if (first < 0) return;
    if (!this.#ctx.capabilities(this.#chat).nativeStream) this.#disableNative();
    const targets = this.#segments.slice(first).filter((s) => !s.abandoned);
    const head = targets[0]!;
    const text = { markdown: this.#markdown, note: this.#note, finished: this.#finished, stops: this.#stops };
    const { parts, finalCount } = relayoutFrom(text, head, this.#layoutContext());
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
      if (seg) Object.assign(seg, { cosmetic: false, finalOutput: undefined, delivered: false, attempts: 0 });
      else seg = this.#newSegment(part.start, part.fence);
      seg.start = part.start;
      seg.fence = part.fence;
      seg.dirty = true;
      this.#segments.push(seg);
      if (i < finalCount) this.#freezeAs(seg, part);
      else {
        seg.final = false;
        seg.end = undefined;
        this.#live = seg;
        this.#liveRendered = part.rendered;
        this.#liveEnd = this.#markdown.length;
      }
    }
    const last = parts.at(-1);
    if (!this.#live && !this.#finished && last) {
      this.#nextStart = last.end;
      this.#nextFence = last.fenceAtEnd;
    }
    this.#layoutDirty = this.#live !== undefined;
    // Whoever waits for delivery (finish) now also waits for the parts added,
    // before any of them is queued, so no wait can end on the old layout.
    for (const w of this.#waiters)
      for (const s of this.#segments) if (!w.segments.includes(s)) w.segments.push(s);
    for (const s of this.#segments) if (!isSettled(s)) this.#touch(s);
    this.#changed();
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
    this.#layoutDirty = true;
  }

  #freezeAs(segment: Segment, part: MessagePart): void {
    segment.final = true;
    segment.end = part.end;
    segment.partText = part.text;
    segment.finalOutput = undefined;
    segment.dirty = true;
  }

  /** New frozen segments for `parts`, in order. */
  #addFrozen(parts: MessagePart[]): void {
    for (const part of parts) {
      const seg = this.#newSegment(part.start, part.fence);
      this.#freezeAs(seg, part);
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
      if (segment.finalOutput === undefined) segment.finalOutput = finalOutput(segment, caps);
      return { out: segment.finalOutput, end: undefined };
    }
    const out = liveOutput(segment, this.#liveRendered, this.#status, this.#liveButtons, caps);
    return { out, end: this.#liveEnd };
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
    const chat = this.#chat;
    const key = segment.handle
      ? this.#ctx.streamKey(chat, segment.handle.id)
      : segment.id !== undefined
        ? this.#ctx.messageKey(chat, segment.id)
        : undefined;
    return segmentReadyAt(segment, now, pace, {
      segments: this.#segments,
      caps: this.#ctx.capabilities(chat),
      markdown: this.#markdown,
      status: this.#status,
      firstTextAt: this.#firstTextAt,
      key,
    });
  }

  #next(segment: Segment): Call | 'later' | undefined {
    if (isSettled(segment)) return undefined;
    const wasLive = !segment.final;
    const { out, end } = this.#output(segment);
    // Laying out the live text just made this message permanent with text it
    // already shows: its remaining edit is cosmetic and may wait for the new
    // message to go first.
    if (wasLive && segment.final && segment.cosmetic) return 'later';
    const step = nextStep(segment, out, this.#replyTo);
    return this.#callFor(segment, step, out, end);
  }

  #callFor(
    segment: Segment,
    step: SegmentStep,
    out: SegmentOutput | null,
    end: number | undefined,
  ): Call | undefined {
    // A stream start shows nothing yet: the text still has to go out after it.
    segment.dirty = step.kind === 'start';
    switch (step.kind) {
      case 'idle':
        return undefined;
      case 'delivered':
        segment.delivered = true;
        this.#changed();
        return undefined;
      case 'drop-stream':
        segment.abandoned = true;
        segment.handle = undefined;
        this.#changed();
        return undefined;
    }
    const ctx = this.#ctx;
    const chat = this.#chat;
    const startedAt = ctx.clock.now();
    const basis = {
      chat,
      adapter: this.#adapter,
      attempt: segment.attempts + 1,
      plain: segment.plain || out?.format === 'plain',
      messageKey: (id: string) => ctx.messageKey(chat, id),
      streamKey: (id: string) => ctx.streamKey(chat, id),
    };
    return callFor(step, basis, {
      created: (id) => {
        if (segment.handle) {
          segment.handle = undefined;
          segment.delivery = 'edits';
        }
        segment.id = id;
      },
      started: (handle) => {
        segment.handle = handle;
        segment.attempts = 0;
        this.#streamStarted(segment, startedAt);
      },
      shown: () => this.#shown(segment, out!, end),
      deleted: () => {
        segment.id = undefined;
        segment.delivered = true;
        this.#changed();
      },
    });
  }

  // ---- answer -----------------------------------------------------------------

  /** The platform shows `out` (up to source offset `end`). */
  #shown(segment: Segment, out: SegmentOutput, end: number | undefined): void {
    const sig = signature(out);
    segment.sentSig = sig;
    if (end !== undefined) segment.shownEnd = end;
    segment.attempts = 0;
    if (out.buttons && out.buttons.length > 0) segment.hadButtons = true;
    if (segment.final) {
      // An update of a still-open stream is no delivery, even with the final
      // text: only finishing it makes the text a message.
      const wanted = segment.handle ? null : this.#output(segment).out;
      if (wanted !== null && signature(wanted) === sig) segment.delivered = true;
      else segment.dirty = true;
    }
    this.#changed();
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
    if (plan.log) {
      this.#ctx.logger[plan.log.level](
        { err, chat: this.#chat, attempts: segment.attempts },
        plan.log.message,
      );
    }
    if (plan.shrink) this.#ctx.shrink(this.#chat);
    if (plan.followUp === 'relayout') this.#relayout();
    else if (plan.followUp === 'edits') this.#disableNative();
    if (plan.changed) this.#changed();
  }

  // ---- delivery waits and native stream age -----------------------------------

  /** Something about a segment changed: waits whose segments are all settled end. */
  #changed(): void {
    if (this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((w) => w.segments.every(isSettled));
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }

  /** Resolves when every segment that exists now is delivered (or given up). */
  #settled(): Promise<void> {
    const segments = [...this.#segments];
    if (segments.every(isSettled)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ segments, resolve }));
  }

  /** A native stream was opened at `at`: make it a message before the platform's maximum age. */
  #streamStarted(segment: Segment, at: number): void {
    const caps = this.#ctx.capabilities(this.#chat);
    if (!caps.nativeStreamMaxMs || segment !== this.#live) return;
    const margin = Math.max(2 * liveIntervalMs(caps), caps.nativeStreamMaxMs * 0.1);
    this.#clearStreamTimer();
    this.#streamTimer = this.#ctx.clock.setTimeout(
      () => {
        this.#streamTimer = undefined;
        this.#rollStream(segment);
      },
      Math.max(0, at + caps.nativeStreamMaxMs - margin - this.#ctx.clock.now()),
    );
  }

  #clearStreamTimer(): void {
    if (this.#streamTimer !== undefined) this.#ctx.clock.clearTimeout(this.#streamTimer);
    this.#streamTimer = undefined;
  }

  /** A native stream nears its maximum age: make it a message and go on in a new stream. */
  #rollStream(segment: Segment): void {
    if (this.#finished || segment !== this.#live || !segment.handle) return;
    const text = this.#markdown;
    let cut = text.lastIndexOf('\n') + 1;
    if (cut <= segment.start) cut = text.lastIndexOf(' ') + 1;
    if (cut <= segment.start) cut = text.length;
    if (cut <= segment.start) return;
    this.#finalizeLive(text.slice(0, cut));
    this.#stops.push(cut);
    if (text.length > cut) this.#touch(this.#newLive());
  }
}
