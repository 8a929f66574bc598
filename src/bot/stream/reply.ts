/**
 * A streamed reply, read top to bottom: text is appended (cheap: one string
 * grows), laid out over messages only when a call is about to be made
 * (reply-segments.ts, with reply-layout.ts), turned into the call its
 * message needs (reply-calls.ts), and the platform's answer is recorded
 * here. The reply alone changes its segments, plain records (segment.ts);
 * the scheduler sees each one as a slot that returns the call to make.
 */
import type { Button, ChatAdapter } from '../adapter-contract.js';
import { plain } from '../format/index.js';
import type { OutboxContext } from './context.js';
import { callFor, nextStep, shownPatch } from './reply-calls.js';
import { planFailure } from './reply-failures.js';
import { rollCut } from './reply-layout.js';
import {
  createsMessage,
  onlyCosmetic,
  opensLocalStream,
  StreamAgeTimer,
  segmentReadyAt,
  streamsNatively,
} from './reply-pace.js';
import { ReplySegments } from './reply-segments.js';
import { DeliveryWaits } from './reply-waits.js';
import type { FailureAction } from './retry.js';
import type { Call, PaceView, Slot } from './scheduler.js';
import { isSettled, type Segment, type SegmentOutput } from './segment.js';
import type { DeliveredReply, ReplyStream, StreamOptions } from './types.js';

/** The {@link ReplyStream} of the outbox. */
export class Reply implements ReplyStream {
  readonly #ctx: OutboxContext;
  readonly #chat: string;
  readonly #adapter: ChatAdapter;
  readonly #replyTo: string | undefined;
  readonly #liveButtons: Button[][] | undefined;
  /** The text and the messages it is laid out over. */
  readonly #segs: ReplySegments;
  #status: string | undefined;
  #finishing: Promise<DeliveredReply> | undefined;
  readonly #slots = new Map<Segment, Slot>();
  #firstTextAt: number | undefined;
  readonly #streamAge: StreamAgeTimer;
  readonly #waits = new DeliveryWaits();

  constructor(ctx: OutboxContext, chat: string, options: StreamOptions, deleteMessage: (id: string) => void) {
    this.#ctx = ctx;
    this.#chat = chat;
    this.#adapter = ctx.adapterFor(chat);
    this.#replyTo = options.replyTo;
    this.#liveButtons = options.liveButtons;
    this.#streamAge = new StreamAgeTimer(ctx.clock);
    this.#segs = new ReplySegments({
      caps: () => ctx.capabilities(chat),
      native: streamsNatively(this.#adapter, ctx.capabilities(chat)),
      waker: { wake: (s) => this.#wake(s), touch: (s) => this.#touch(s) },
      deleteMessage,
    });
  }

  get text(): string {
    return this.#segs.text.markdown;
  }

  get messageIds(): readonly string[] {
    return this.#segs.list.flatMap((s) => (s.id === undefined ? [] : [s.id]));
  }

  // ---- append ---------------------------------------------------------------

  append(delta: string): void {
    if (delta === '' || this.#segs.text.finished) return;
    this.#firstTextAt ??= this.#ctx.clock.now();
    const live = this.#segs.append(delta);
    // Until the first message exists, each delta may make it ready (a whole word arrived).
    if (live.id === undefined && !live.handle) this.#touch(live);
    else {
      live.dirty = true;
      this.#ctx.scheduler.wake(this.#slot(live), this.#adapter, true);
    }
  }

  setStatus(line: string | undefined): void {
    if (this.#segs.text.finished || line === this.#status) return;
    this.#status = line;
    const live = this.#segs.live;
    if (live) this.#touch(live);
    else if (line !== undefined && !this.#segs.native) this.#touch(this.#segs.newLive());
  }

  async checkpoint(): Promise<void> {
    const { text } = this.#segs;
    if (text.finished) {
      await this.#finishing;
      return;
    }
    if (this.#segs.live) {
      this.#streamAge.clear();
      this.#segs.finalizeLive(text.markdown);
      text.stops.push(text.markdown.length);
    }
    await this.#waits.wait(this.#segs.list);
  }

  finish(options: { note?: string } = {}): Promise<DeliveredReply> {
    if (this.#finishing) return this.#finishing;
    this.#segs.text.finished = true;
    this.#status = undefined;
    this.#streamAge.clear();
    this.#segs.finish(options.note);
    for (const s of this.#segs.list) if (!isSettled(s)) this.#touch(s);
    this.#finishing = this.#waits.wait(this.#segs.list).then(() => ({
      messageIds: [...this.messageIds],
      text: this.#segs.text.markdown,
    }));
    return this.#finishing;
  }

  /** CAPABILITY_CHANGED or MESSAGE_TOO_LONG: every unsettled segment laid out again and queued. */
  #relayout(): void {
    if (!this.#segs.relayout()) return;
    this.#waits.cover(this.#segs.list);
    for (const s of this.#segs.list) if (!isSettled(s)) this.#touch(s);
    this.#waits.check();
  }

  /** What `segment` should show now, and the source offset a live output covers. */
  #output(segment: Segment): { out: SegmentOutput | null; end: number | undefined } {
    return this.#segs.output(segment, this.#status, this.#liveButtons);
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
        unbudgeted: () => opensLocalStream(segment, this.#ctx.capabilities(this.#chat)),
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
    const { markdown } = this.#segs.text;
    const caps = this.#ctx.capabilities(this.#chat);
    const r = { chat: this.#chat, segments: this.#segs.list, caps, markdown, keys: this.#ctx };
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
      startCounts: this.#ctx.capabilities(this.#chat).nativeStreamStartCounts === true,
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
    else if (plan.followUp === 'edits') this.#segs.disableNative();
    if (plan.changed) this.#waits.check();
  }

  // ---- native stream age -------------------------------------------------------

  /** A native stream was opened at `at`: it becomes a message before the platform's maximum age. */
  #streamStarted(segment: Segment, at: number): void {
    if (segment !== this.#segs.live) return;
    this.#streamAge.start(at, this.#ctx.capabilities(this.#chat), () => this.#rollStream(segment));
  }

  /** A native stream nears its maximum age: make it a message and go on in a new stream. */
  #rollStream(segment: Segment): void {
    const { text } = this.#segs;
    if (text.finished || segment !== this.#segs.live || !segment.handle) return;
    const md = text.markdown;
    const cut = rollCut(md, segment.start);
    if (cut === undefined) return;
    this.#streamAge.clear();
    this.#segs.finalizeLive(md.slice(0, cut));
    text.stops.push(cut);
    if (md.length > cut) this.#touch(this.#segs.newLive());
  }
}
