/**
 * What one message of a streamed reply should show, and which platform call
 * brings it there: pure functions of the segment's record and the chat's
 * capabilities. The reply (reply.ts) turns a {@link SegmentStep} into a call
 * and records the answer.
 */
import type {
  Button,
  ChatAdapter,
  ChatCapabilities,
  Dialect,
  OutboundMessage,
  StreamHandle,
} from '../adapter-contract.js';
import { plain, type RenderCache, renderPart, renderStatusLine } from '../format/index.js';
import { rawText } from './message-parts.js';
import type { PaceKey } from './pace.js';
import type { CallKind } from './retry.js';
import type { Call } from './scheduler.js';
import { type Segment, type SegmentOutput, signature } from './segment.js';

/** The dialect a segment shows in: the chat's, or plain after a rejection. */
export function segmentDialect(segment: Segment, caps: ChatCapabilities): Dialect {
  return segment.plain ? plain : caps.dialect;
}

/** Native streams of a platform that renders Markdown itself carry the model's own text, so they only ever grow. */
export function carriesRawText(segment: Segment, caps: ChatCapabilities): boolean {
  return segment.delivery === 'native' && segmentDialect(segment, caps).rawMarkdown !== undefined;
}

/**
 * The final form of a frozen segment; null when it has nothing to show.
 * With the reply's `cache`, block groups the live layout rendered are reused.
 */
export function finalOutput(
  segment: Segment,
  caps: ChatCapabilities,
  cache?: RenderCache,
): SegmentOutput | null {
  const dialect = segmentDialect(segment, caps);
  const text = carriesRawText(segment, caps)
    ? rawText(segment.partText.trim(), dialect, caps.mentions ?? 'none', true)
    : renderPart(segment.partText, dialect, false, cache, caps.mentions);
  if (text.trim() === '') return null;
  return { text, format: dialect, ...(segment.hadButtons ? { buttons: [] as Button[][] } : {}) };
}

/**
 * The live form of the segment still receiving text: its rendering, the
 * status line under it (edited messages only: a native stream cannot take
 * it back), and the live buttons; null when there is nothing to show yet.
 */
export function liveOutput(
  segment: Segment,
  rendered: string,
  status: string | undefined,
  liveButtons: Button[][] | undefined,
  caps: ChatCapabilities,
): SegmentOutput | null {
  const dialect = segmentDialect(segment, caps);
  let text = rendered;
  if (status !== undefined && segment.delivery === 'edits') {
    const line = renderStatusLine(status, dialect);
    if (line !== '') text = text.trim() === '' ? line : `${text}\n\n${line}`;
  }
  if (text.trim() === '') return null;
  // Buttons once shown must be removed explicitly: an edit without them keeps them.
  const buttons = liveButtons ?? (segment.hadButtons ? [] : undefined);
  return { text, format: dialect, ...(buttons ? { buttons } : {}) };
}

/** A step that needs a platform call. */
export type CallStep =
  | { readonly kind: 'delete'; readonly id: string }
  | { readonly kind: 'send'; readonly message: OutboundMessage }
  | { readonly kind: 'edit'; readonly id: string; readonly message: OutboundMessage }
  | { readonly kind: 'start'; readonly replyTo: string | undefined }
  | { readonly kind: 'update'; readonly handle: StreamHandle; readonly message: OutboundMessage }
  | { readonly kind: 'finish'; readonly handle: StreamHandle; readonly message: OutboundMessage };

/** The next thing to do for a segment: a call, or only a change of its record. */
export type SegmentStep = CallStep | { readonly kind: 'none'; readonly patch: Partial<Segment> };

/** Nothing until the content changes. */
const IDLE: SegmentStep = { kind: 'none', patch: {} };
/** The message already shows its final form. */
const DELIVERED: SegmentStep = { kind: 'none', patch: { delivered: true } };
/** A native stream that never showed text: nothing to keep. */
const DROP_STREAM: SegmentStep = { kind: 'none', patch: { abandoned: true, handle: undefined } };

function toMessage(out: SegmentOutput): OutboundMessage {
  return { text: out.text, format: out.format, ...(out.buttons ? { buttons: out.buttons } : {}) };
}

/**
 * The step that brings `segment` to `out`. The reply's first message
 * answers `replyTo`.
 */
export function nextStep(
  segment: Segment,
  out: SegmentOutput | null,
  replyTo: string | undefined,
): SegmentStep {
  const answers = segment.start === 0 ? replyTo : undefined;
  if (out === null) {
    if (!segment.final) return IDLE;
    if (segment.handle) return DROP_STREAM;
    if (segment.id === undefined) return DELIVERED;
    return { kind: 'delete', id: segment.id };
  }
  const message = toMessage(out);
  if (segment.delivery === 'native' && (segment.handle || !segment.final)) {
    if (!segment.handle) return { kind: 'start', replyTo: answers };
    if (segment.final) return { kind: 'finish', handle: segment.handle, message };
    if (signature(out) === segment.sentSig) return IDLE;
    return { kind: 'update', handle: segment.handle, message };
  }
  if (segment.id === undefined) {
    return { kind: 'send', message: answers === undefined ? message : { ...message, replyTo: answers } };
  }
  if (signature(out) === segment.sentSig) return segment.final ? DELIVERED : IDLE;
  return { kind: 'edit', id: segment.id, message };
}

/** What the reply records when a segment's call succeeds. */
export interface CallAnswers {
  /** The call changed the segment's message: a new id, an open or finished stream, a deletion. */
  record(patch: Partial<Segment>): void;
  /** The message or stream shows the output the call carried. */
  shown(): void;
}

/** Where a call goes, how its pace is keyed, and how it is numbered. */
export interface CallBasis {
  readonly chat: string;
  readonly adapter: ChatAdapter;
  readonly keys: {
    messageKey(chat: string, id: string): PaceKey;
    streamKey(chat: string, id: string): PaceKey;
  };
  readonly attempt: number;
  readonly plain: boolean;
  /** Opening a stream is a platform request, paced like the stream's updates. */
  readonly startCounts: boolean;
}

/** The platform call for `step`; its success is recorded through `answer`. */
export function callFor(step: CallStep, b: CallBasis, answer: CallAnswers): Call {
  const { chat, adapter: a, keys } = b;
  const call = (kind: CallKind, paces: PaceKey | undefined, run: Call['run']): Call => ({
    kind,
    attempt: b.attempt,
    plain: b.plain,
    ...(paces ? { paces } : {}),
    run,
  });
  /** The message shows the call's output; a new message is paced from this call on. */
  const shown = (created?: string): PaceKey | undefined => {
    answer.shown();
    return created === undefined ? undefined : keys.messageKey(chat, created);
  };
  switch (step.kind) {
    case 'delete':
      return call('delete', undefined, async () => {
        await a.delete(chat, step.id);
        answer.record({ id: undefined, delivered: true });
        return undefined;
      });
    case 'send':
      return call('send', undefined, async () => {
        const { messageId } = await a.send(chat, step.message);
        answer.record({ id: messageId });
        return shown(messageId);
      });
    case 'edit':
      return call('edit', keys.messageKey(chat, step.id), async () => {
        await a.edit(chat, step.id, step.message);
        return shown();
      });
    case 'start':
      return call('start', undefined, async () => {
        const options = step.replyTo === undefined ? {} : { replyTo: step.replyTo };
        const handle = await a.startStream!(chat, options);
        answer.record({ handle, attempts: 0 });
        // Where the platform sees the opening, the stream's pace starts with it.
        return b.startCounts ? keys.streamKey(chat, handle.id) : undefined;
      });
    case 'update':
      return call('update', keys.streamKey(chat, step.handle.id), async () => {
        await a.updateStream!(step.handle, step.message);
        return shown();
      });
    case 'finish':
      return call('finish', keys.streamKey(chat, step.handle.id), async () => {
        const { messageId } = await a.finishStream!(step.handle, step.message);
        // The stream is a message now: later changes are edits of it.
        answer.record({ handle: undefined, delivery: 'edits', id: messageId });
        return shown(messageId);
      });
  }
}

/**
 * The record's change once the platform shows `out` (up to source offset
 * `end`). A final segment is delivered when that is its final form
 * (`wanted`); an update of a still-open stream is no delivery, even with the
 * final text: only finishing it makes the text a message.
 */
export function shownPatch(
  segment: Readonly<Segment>,
  out: SegmentOutput,
  end: number | undefined,
  wanted: SegmentOutput | null,
): Partial<Segment> {
  const sig = signature(out);
  const patch: Partial<Segment> = { sentSig: sig, attempts: 0 };
  if (end !== undefined) patch.shownEnd = end;
  if (out.buttons && out.buttons.length > 0) patch.hadButtons = true;
  if (segment.final) {
    if (!segment.handle && wanted !== null && signature(wanted) === sig) patch.delivered = true;
    else patch.dirty = true;
  }
  return patch;
}
