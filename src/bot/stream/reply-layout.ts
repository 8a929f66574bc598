/**
 * How a streamed reply's text is laid out over its messages: pure functions
 * from the text, the chat's capabilities and the reply's segments to the
 * parts each message should hold. The reply (reply.ts) applies them.
 */
import type { ChatCapabilities } from '../adapter-contract.js';
import type { FenceState, RenderCache } from '../format/index.js';
import { cutNear, fenceAfter, type MessagePart, messageParts, partUntil } from './message-parts.js';
import { carriesRawText, segmentDialect } from './reply-calls.js';
import type { Segment } from './segment.js';

/** What every layout of one reply shares. */
export interface LayoutContext {
  caps: ChatCapabilities;
  /** Renderings of finished block groups of the live text. */
  cache: RenderCache;
}

/**
 * Lays out `md` from `from` in the manner of segment `like` (its dialect and
 * delivery): final parts at full length, or live parts with room for the
 * status line.
 */
export function layoutFrom(
  md: string,
  from: number,
  fence: FenceState | undefined,
  like: Segment,
  final: boolean,
  c: LayoutContext,
): MessagePart[] {
  return messageParts(md, from, fence, {
    caps: c.caps,
    dialect: segmentDialect(like, c.caps),
    raw: carriesRawText(like, c.caps),
    final,
    statusRoom: !final && like.delivery === 'edits',
    cache: c.cache,
  });
}

/** The reply's text and the marks a relayout must keep. */
export interface ReplyText {
  markdown: string;
  /** The closing note, laid out after the text once the reply is finished. */
  note: string;
  finished: boolean;
  /** Offsets where a message was made permanent on purpose (checkpoints, stream rolls). */
  stops: readonly number[];
}

/**
 * Every part from `head` on: regions ended by a stop are final, then the
 * tail; of the tail, all but the last part are final unless the reply is
 * finished. `finalCount` says how many of `parts` are final.
 */
export function relayoutFrom(
  text: ReplyText,
  head: Segment,
  c: LayoutContext,
): { parts: MessagePart[]; finalCount: number } {
  const parts: MessagePart[] = [];
  let from = head.start;
  let fence = head.fence;
  for (const stop of text.stops) {
    if (stop <= from) continue;
    const md = text.markdown.slice(0, stop);
    parts.push(...layoutFrom(md, from, fence, head, true, c));
    fence = fenceAfter(md, from, fence);
    from = stop;
  }
  const tail = text.finished
    ? layoutFrom(text.markdown + text.note, from, fence, head, true, c)
    : layoutFrom(text.markdown, from, fence, head, false, c);
  const finalCount = parts.length + (text.finished ? tail.length : Math.max(0, tail.length - 1));
  parts.push(...tail);
  return { parts, finalCount };
}

/**
 * Where an edited message whose text outgrew it can end within the text it
 * already shows, so nothing in it waits to become visible and its last
 * (cosmetic) edit can give way to the next message. Undefined when it has
 * shown too little for that.
 */
export function shownPart(markdown: string, live: Segment, caps: ChatCapabilities): MessagePart | undefined {
  const shown = live.shownEnd;
  if (live.delivery !== 'edits' || live.id === undefined || shown === undefined) return undefined;
  if (shown - live.start < caps.maxMessageLength / 3) return undefined;
  const cut = cutNear(markdown, live.start, shown);
  if (cut <= live.start) return undefined;
  return partUntil(markdown, live.start, live.fence, cut, segmentDialect(live, caps), caps.maxMessageLength);
}

/** The closing note under a finished reply, closing a code fence left open. */
export function closingNote(
  markdown: string,
  from: number,
  fence: FenceState | undefined,
  note: string,
): string {
  const open = fenceAfter(markdown, from, fence);
  const close = open ? `${markdown.endsWith('\n') ? '' : '\n'}${open.indent}${open.marker}` : '';
  const sep = markdown.trim() === '' ? '' : '\n\n';
  return `${close}${sep}_${note.replace(/[\\`*_~[\]<>]/g, '\\$&')}_`;
}
