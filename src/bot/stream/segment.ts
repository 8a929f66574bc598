/**
 * One message of a streamed reply, as plain data. Only its reply changes
 * it (reply.ts, and reply-segments.ts for its layout); the pure functions
 * in reply-calls.ts read it to decide the next call.
 */
import type { Button, Dialect, StreamHandle } from '../adapter-contract.js';
import type { FenceState } from '../format/index.js';

/** What a segment should show now. */
export interface SegmentOutput {
  text: string;
  format: Dialect;
  buttons?: Button[][];
}

/** One message of a reply. */
export interface Segment {
  /** Source range in the reply's text: `end` is undefined while the segment is the live one. */
  start: number;
  /** The code fence open at `start` (reopened at the top of the message). */
  fence: FenceState | undefined;
  end: number | undefined;
  /** The Markdown (with added fence lines) of a frozen segment. */
  partText: string;
  /** Frozen: its text is fixed and its final form must be delivered. */
  final: boolean;
  delivered: boolean;
  /** Given up, or made surplus by a relayout. */
  abandoned: boolean;
  /** Formatting was rejected: show this segment as plain text. */
  plain: boolean;
  /** How its live text reaches the chat: edits of a message, or the platform's native stream. */
  delivery: 'edits' | 'native';
  /** The platform's message id, once sent. */
  id: string | undefined;
  /** The open native stream. */
  handle: StreamHandle | undefined;
  /** Cached final output (cleared when the layout changes). */
  finalOutput: SegmentOutput | null | undefined;
  /** Buttons were shown on this message (they must be removed at the end). */
  hadButtons: boolean;
  /** The wanted output may differ from what was last shown. */
  dirty: boolean;
  /** Frozen with text that was already visible: only cosmetic work (buttons, status) is left. */
  cosmetic: boolean;
  /** Source offset up to which this message has shown the text (live edits). */
  shownEnd: number | undefined;
  /** Signature of what the message shows. */
  sentSig: string | undefined;
  /** Failures since the last success. */
  attempts: number;
  /** No call before this time (backoff). */
  notBefore: number;
}

/** A new, empty segment starting at `start`. */
export function newSegment(
  start: number,
  fence: FenceState | undefined,
  delivery: Segment['delivery'],
): Segment {
  return {
    start,
    fence,
    end: undefined,
    partText: '',
    final: false,
    delivered: false,
    abandoned: false,
    plain: false,
    delivery,
    id: undefined,
    handle: undefined,
    finalOutput: undefined,
    hadButtons: false,
    dirty: true,
    cosmetic: false,
    shownEnd: undefined,
    sentSig: undefined,
    attempts: 0,
    notBefore: 0,
  };
}

/** Delivered or given up: nothing more will be sent for it. */
export function isSettled(s: Segment): boolean {
  return s.delivered || s.abandoned;
}

/** Identifies an output, to skip a call that would show what is already shown. */
export function signature(o: SegmentOutput): string {
  return `${o.format.name}\u0000${o.text}\u0000${o.buttons ? JSON.stringify(o.buttons) : ''}`;
}
