/**
 * The outbox's layout: a pure function from Markdown text and a chat's
 * capabilities to the parts that each fit one message, and the helpers a
 * streamed reply uses to choose where a message ends. No state, no calls:
 * the reply (reply.ts) and one-off sends (oneoff.ts) decide what to do with
 * the parts.
 */

import type { ChatCapabilities, Dialect, MentionPolicy } from '../adapter-contract.js';
import {
  type FenceState,
  fenceStateAt,
  layoutMarkdown,
  nextSplit,
  type RenderCache,
  rawMarkdownText,
  renderPart,
} from '../format/index.js';

/** Live edits use at most 1 / BUDGET_HEADROOM of a chat budget. */
const BUDGET_HEADROOM = 1.1;

/** Room kept free for the status line in a live message. */
const STATUS_RESERVE = 120;

/** One message's share of a text. */
export interface MessagePart {
  start: number;
  end: number;
  /** The fence open at `start` (reopened at the top of the part). */
  fence: FenceState | undefined;
  fenceAtEnd: FenceState | undefined;
  /** Markdown of the part, with added fence lines. */
  text: string;
  rendered: string;
}

/** How to lay out one region of a text. */
export interface MessagePartOptions {
  caps: ChatCapabilities;
  dialect: Dialect;
  /** Parts carry the model's Markdown as is (Markdown native streams). */
  raw: boolean;
  /** Final parts render as written; live ones are healed (the text is still coming). */
  final: boolean;
  /** Keep room for the status line (live edited messages). */
  statusRoom: boolean;
  /** Renderings of finished block groups, reused while a reply grows. */
  cache?: RenderCache;
}

/**
 * Pace between two live updates of one message: the declared minimum, or the
 * chat budget spread evenly with some headroom, whichever is slower, so live
 * edits never burst a budget and then go quiet.
 */
export function liveIntervalMs(caps: ChatCapabilities): number {
  const spread = caps.budget ? (caps.budget.windowMs / caps.budget.count) * BUDGET_HEADROOM : 0;
  // Whole milliseconds: a fraction (3000 * 1.1) would carry float error into
  // every later call time, and a call could arrive a hair under the pace.
  return Math.ceil(Math.max(caps.minEditIntervalMs, spread));
}

/**
 * The fence open after all of `md` (from `start`), counting its last line as
 * complete: at a message boundary that line is as finished as it will get.
 */
export function fenceAfter(md: string, start: number, fence: FenceState | undefined): FenceState | undefined {
  return fenceStateAt(`${md}\n`, start, fence, md.length + 1);
}

/**
 * A message boundary at or a little before `end`: a paragraph or line break,
 * else `end` itself when it falls between words, else the last space.
 */
export function cutNear(text: string, start: number, end: number): number {
  const floor = Math.max(start + 1, end - 200);
  const para = text.lastIndexOf('\n\n', end - 2);
  if (para >= floor) return para + 2;
  const line = text.lastIndexOf('\n', end - 1);
  if (line >= floor) return line + 1;
  if (/\s/.test(text[end] ?? ' ') || /\s/.test(text[end - 1] ?? '')) return end;
  const space = text.lastIndexOf(' ', end - 1);
  return space >= floor ? space + 1 : end;
}

/** Lays out `md` from `from` (where `fence` is open) into parts that fit one message each. */
export function messageParts(
  md: string,
  from: number,
  fence: FenceState | undefined,
  o: MessagePartOptions,
): MessagePart[] {
  const reserve = o.statusRoom ? Math.min(STATUS_RESERVE, Math.floor(o.caps.maxMessageLength / 10)) : 0;
  const maxLength = o.caps.maxMessageLength - reserve;
  const parts: MessagePart[] = [];
  let f = fence;
  const mentions = o.caps.mentions ?? 'none';
  if (o.raw) {
    let start = from;
    while (start < md.length) {
      const p = nextSplit(md, start, f, maxLength);
      const last = p.end >= md.length;
      const rendered = rawText(p.text, o.dialect, mentions, o.final || !last);
      parts.push({ start, end: p.end, fence: f, fenceAtEnd: p.fenceAtEnd, text: p.text, rendered });
      start = p.end;
      f = p.fenceAtEnd;
    }
    return parts;
  }
  const options = {
    dialect: o.dialect,
    maxLength,
    from,
    fence,
    partial: !o.final,
    mentions,
    ...(o.cache ? { cache: o.cache } : {}),
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

/**
 * A part carried as written: plain text as is; the model's Markdown for a
 * platform that renders it (native streams) with the mentions `mentions`
 * does not allow broken, and while the text is live, without a tail that
 * could still become one (so a stream only ever grows).
 */
export function rawText(text: string, dialect: Dialect, mentions: MentionPolicy, final: boolean): string {
  return dialect.rawMarkdown ? rawMarkdownText(text, dialect.rawMarkdown, mentions, final) : text;
}

/**
 * The part holding `text` from `start` (fence open there) to `cut`, closing a
 * fence still open at the cut; undefined when it renders too long. With
 * `cache`, block groups rendered before are reused.
 */
export function partUntil(
  text: string,
  start: number,
  fence: FenceState | undefined,
  cut: number,
  dialect: Dialect,
  maxLength: number,
  cache?: RenderCache,
  mentions: MentionPolicy = 'none',
): MessagePart | undefined {
  const fenceAtCut = fenceStateAt(text, start, fence, cut);
  const prefix = fence ? `${fence.indent}${fence.marker}${fence.info}\n` : '';
  const suffix = fenceAtCut
    ? `${text[cut - 1] === '\n' ? '' : '\n'}${fenceAtCut.indent}${fenceAtCut.marker}`
    : '';
  const partText = prefix + text.slice(start, cut) + suffix;
  const rendered = renderPart(partText, dialect, false, cache, mentions);
  if (rendered.length > maxLength) return undefined;
  return { start, end: cut, fence, fenceAtEnd: fenceAtCut, text: partText, rendered };
}
