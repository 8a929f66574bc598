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
function layoutFrom(
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
  stops: number[];
}

/** Where one part of a relayout goes: into an existing segment (reused in order) or a new one. */
export interface Placement {
  readonly reuse: Segment | undefined;
  readonly part: MessagePart;
  readonly final: boolean;
}

/**
 * Lays out the text again over `targets` (the unsettled segments, in
 * order): regions ended by a stop are final, then the tail; of the tail, all
 * but the last part are final unless the reply is finished. Targets beyond
 * the new parts are `surplus`.
 */
export function relayoutFrom(
  text: ReplyText,
  targets: readonly Segment[],
  c: LayoutContext,
): { placed: Placement[]; surplus: Segment[] } {
  const head = targets[0]!;
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
  return {
    placed: parts.map((part, i) => ({ reuse: targets[i], part, final: i < finalCount })),
    surplus: targets.slice(parts.length),
  };
}

/**
 * Where an edited message whose text outgrew it can end within the text it
 * already shows, so nothing in it waits to become visible and its last
 * (cosmetic) edit can give way to the next message. Undefined when it has
 * shown too little for that.
 */
function shownPart(markdown: string, live: Segment, c: LayoutContext): MessagePart | undefined {
  const caps = c.caps;
  const shown = live.shownEnd;
  if (live.delivery !== 'edits' || live.id === undefined || shown === undefined) return undefined;
  if (shown - live.start < caps.maxMessageLength / 3) return undefined;
  const cut = cutNear(markdown, live.start, shown);
  if (cut <= live.start) return undefined;
  const dialect = segmentDialect(live, caps);
  return partUntil(
    markdown,
    live.start,
    live.fence,
    cut,
    dialect,
    caps.maxMessageLength,
    c.cache,
    caps.mentions,
  );
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

/** The change of a segment's record when its text is fixed to `part`: its final form must be delivered. */
export function frozenAs(part: MessagePart): Partial<Segment> {
  return { final: true, end: part.end, partText: part.text, finalOutput: undefined, dirty: true };
}

/** How the live segment ends: frozen with one part, followed by more. */
export interface LiveSplit {
  /** The part the live segment keeps, now permanent. */
  readonly keep: MessagePart;
  /** Its text is all visible already: only a cosmetic edit is left. */
  readonly cosmetic: boolean;
  /** Parts after it, each a new permanent message. */
  readonly frozen: readonly MessagePart[];
  /** Where a new live segment starts, when the text goes on in one. */
  readonly next?: { readonly start: number; readonly fence: FenceState | undefined };
}

/** The live segment's layout: its rendering so far, and a split when the text outgrew one message. */
export interface LiveLayout {
  readonly rendered: string;
  /** The source offset the rendering covers, when it covers the text so far. */
  readonly end?: number;
  readonly split?: LiveSplit;
  /** The new live segment must be laid out again (a cut within shown text leaves its rest unrendered). */
  readonly again?: boolean;
}

/**
 * Lays out the live text from `live`: all but its last part become permanent
 * messages, the last is the new live one. An edited message that outgrew its
 * length ends within the text it already shows, when it has shown enough.
 */
export function layoutLive(markdown: string, live: Segment, c: LayoutContext): LiveLayout {
  const parts = layoutFrom(markdown, live.start, live.fence, live, false, c);
  const last = parts.at(-1);
  if (!last) return { rendered: '' };
  if (parts.length === 1) return { rendered: last.rendered, end: markdown.length };
  const shown = shownPart(markdown, live, c);
  if (shown) {
    const next = { start: shown.end, fence: shown.fenceAtEnd };
    return { rendered: '', again: true, split: { keep: shown, cosmetic: true, frozen: [], next } };
  }
  const next = { start: last.start, fence: last.fence };
  return {
    rendered: last.rendered,
    split: { keep: parts[0]!, cosmetic: false, frozen: parts.slice(1, -1), next },
  };
}

/**
 * Makes the live segment permanent with all of `md` from its start; `fence`
 * is the code fence open where the next text starts.
 */
export function finalizeLive(
  md: string,
  live: Segment,
  c: LayoutContext,
): { split: LiveSplit; fence: FenceState | undefined } {
  const parts = layoutFrom(md, live.start, live.fence, live, true, c);
  const [first, ...rest] = parts;
  const last = parts.at(-1);
  const fence = last ? fenceAfter(md, last.start, last.fence) : live.fence;
  const keep = first ?? {
    start: live.start,
    end: md.length,
    fence: live.fence,
    fenceAtEnd: live.fence,
    text: '',
    rendered: '',
  };
  return { split: { keep, cosmetic: false, frozen: rest }, fence };
}

/**
 * Where a native stream near its maximum age ends: after the last whole
 * line, else the last whole word, else all the text; undefined when that
 * leaves the stream nothing.
 */
export function rollCut(text: string, start: number): number | undefined {
  let cut = text.lastIndexOf('\n') + 1;
  if (cut <= start) cut = text.lastIndexOf(' ') + 1;
  if (cut <= start) cut = text.length;
  return cut <= start ? undefined : cut;
}
