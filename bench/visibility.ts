/**
 * What a user of the chat could read, and when. Replays the calls a
 * simulated platform accepted and measures, for every text delta of a reply,
 * how long it took until a completed call showed it (staleness), and whether
 * the messages left at the end hold exactly the reply's text (fidelity).
 *
 * Rendering changes markup (HTML tags, mrkdwn, fence info strings), never the
 * words, so text is compared as a sequence of word and punctuation tokens
 * after stripping markup, the status line and messages that are not part of
 * the reply (the approval prompt).
 */

import { telegramHtml } from '../adapters/telegram/markdown.js';
import type { Dialect } from '../src/bot/adapter-contract.js';
import { markdown } from '../src/bot/format/dialect.js';
import { renderStatusLine } from '../src/bot/format/index.js';
import type { RecordedOp } from '../test/fakes/recording-adapter.js';

/** A token's text and where it ends in the source. */
interface Token {
  text: string;
  end: number;
}

const TOKEN = /[A-Za-z0-9]+|[.;()=,:]/g;

function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) out.push({ text: m[0], end: (m.index ?? 0) + m[0].length });
  return out;
}

/** Turns a platform message back into readable text: no tags, entities, fence info or status line. */
export function readable(text: string, dialect: Dialect, statusLines: readonly string[]): string {
  let t = text;
  for (const s of statusLines) {
    const line = renderStatusLine(s, dialect);
    if (line !== '') t = t.split(line).join(' ');
  }
  if (dialect === telegramHtml) {
    t = t
      .replace(/<[^>]*>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  }
  // Same-length blanks keep source offsets valid (tokens of the source carry their end offset).
  return t.replace(/```[A-Za-z0-9]*/g, (fence) => ' '.repeat(fence.length));
}

/** One text delta as the reply received it. */
export interface TimedDelta {
  at: number;
  text: string;
}

/** What {@link analyseVisibility} measured. */
export interface Visibility {
  /** Per delta that completes at least one token: ms until a completed call showed it. */
  staleness: number[];
  /** Deltas never shown before the end of the run. */
  neverShown: number;
  /** ms from the first delta to the first completed call showing any reply text. */
  firstVisibleMs: number;
  /** The messages left at the end hold exactly the reply's text, no status line, no open stream. */
  fidelity: boolean;
  fidelityNote: string;
  /** Messages the reply occupies at the end. */
  messages: number;
}

/**
 * Replays `ops` (in arrival order) and measures visibility of `deltas`.
 * `exclude` holds ids of messages that are not part of the reply.
 */
export function analyseVisibility(input: {
  ops: readonly RecordedOp[];
  deltas: readonly TimedDelta[];
  source: string;
  dialect: (format: Dialect | undefined) => Dialect;
  exclude: ReadonlySet<string>;
  statusLines: readonly string[];
}): Visibility {
  const source = tokens(readable(input.source, markdown, []));
  const tokensOf = (op: RecordedOp) =>
    tokens(readable(op.text ?? '', input.dialect(op.format), input.statusLines)).map((t) => t.text);
  const snapshots = replay(input, tokensOf, source);
  const covers = (snap: Snapshot, index: number) => snap.ranges.some(([a, b]) => index >= a && index < b);

  const staleness: number[] = [];
  let neverShown = 0;
  let offset = 0;
  let tokenIndex = 0;
  let prevCount = 0;
  let from = 0;
  for (const d of input.deltas) {
    offset += d.text.length;
    while (tokenIndex < source.length && source[tokenIndex]!.end <= offset) tokenIndex++;
    // Tokens completed by this delta: [prevCount, count). A word cut by the delta counts with the next one.
    const count = offset >= input.source.length ? source.length : tokenIndex;
    if (count <= prevCount) continue;
    const first = prevCount;
    prevCount = count;
    while (from < snapshots.length && snapshots[from]!.time < d.at) from++;
    let seen: Snapshot | undefined;
    for (let i = from; i < snapshots.length && !seen; i++) {
      const snap = snapshots[i]!;
      if (covers(snap, first) && covers(snap, count - 1)) seen = snap;
    }
    if (seen) staleness.push(seen.time - d.at);
    else neverShown++;
  }
  const firstDelta = input.deltas[0]?.at ?? 0;
  const shown = snapshots.find((v) => v.anyText);
  const end = finalState(input, tokensOf);
  const finalTokens = end.texts.flat();
  let fidelityNote = '';
  if (end.openStreams > 0) fidelityNote = `${end.openStreams} stream(s) left open`;
  else if (end.statusLeft) fidelityNote = 'a status line was left in the text';
  else if (finalTokens.length !== source.length || commonPrefix(finalTokens, source) !== source.length) {
    const at = commonPrefix(finalTokens, source);
    fidelityNote = `text differs at token ${at} of ${source.length} (${finalTokens.length} shown)`;
  }
  return {
    staleness,
    neverShown,
    firstVisibleMs: shown ? shown.time - firstDelta : Number.NaN,
    fidelity: fidelityNote === '',
    fidelityNote: fidelityNote || 'exact',
    messages: end.texts.length,
  };
}

function commonPrefix(shown: readonly string[], source: readonly Token[]): number {
  let i = 0;
  while (i < shown.length && i < source.length && shown[i] === source[i]!.text) i++;
  return i;
}

/** Which source tokens the chat shows after one accepted call: [start, end) ranges. */
interface Snapshot {
  time: number;
  ranges: [number, number][];
  /** Some reply text is on screen (even a word still being written). */
  anyText: boolean;
}

/** Tokens matched to find where a message's text starts in the source. */
const ANCHOR = 8;

/** A message (or stream) of the reply and where its tokens sit in the source. */
interface Container {
  tokens: string[];
  range: [number, number];
}

/**
 * Replays accepted calls and records, after each, which source tokens the
 * chat shows. Each message is placed in the source by its first complete
 * tokens (searched after the previous message's start), then covers as many
 * tokens as match from there. A reply has at most one open native stream;
 * when it finishes, the new message takes the stream's place.
 */
function replay(
  input: Parameters<typeof analyseVisibility>[0],
  tokensOf: (op: RecordedOp) => string[],
  source: readonly Token[],
): Snapshot[] {
  let containers = new Map<string, Container>();
  const out: Snapshot[] = [];
  const place = (key: string, shown: string[]) => {
    const keys = [...containers.keys()];
    const at = keys.indexOf(key);
    const prev =
      at > 0
        ? containers.get(keys[at - 1]!)
        : at < 0 && keys.length > 0
          ? containers.get(keys[keys.length - 1]!)
          : undefined;
    containers.set(key, { tokens: shown, range: locate(shown, source, prev ? prev.range[0] : 0) });
  };
  for (const op of input.ops) {
    if (!op.ok || op.op === 'typing' || op.messageId === undefined) continue;
    if (op.op !== 'finishStream' && input.exclude.has(op.messageId)) continue;
    switch (op.op) {
      case 'startStream':
        place(`s:${op.messageId}`, []);
        break;
      case 'updateStream':
        place(`s:${op.messageId}`, tokensOf(op));
        break;
      case 'finishStream': {
        const streamKey = [...containers.keys()].find((k) => k.startsWith('s:'));
        const next = new Map<string, Container>();
        for (const [k, v] of containers) next.set(k === streamKey ? `m:${op.messageId}` : k, v);
        containers = next;
        place(`m:${op.messageId}`, tokensOf(op));
        break;
      }
      case 'delete':
        containers.delete(`m:${op.messageId}`);
        break;
      default:
        place(`m:${op.messageId}`, tokensOf(op));
    }
    const all = [...containers.values()];
    out.push({
      time: op.time,
      ranges: all.map((c) => c.range),
      anyText: all.some((c) => c.tokens.length > 0),
    });
  }
  return out;
}

/** Where `shown` sits in `source`, searching from `from`: the matching range, or empty. */
function locate(shown: readonly string[], source: readonly Token[], from: number): [number, number] {
  // The last token may be a word still being written: anchor on complete ones.
  const anchor = Math.min(ANCHOR, shown.length - 1);
  if (anchor <= 0) {
    // A single token: only placeable right where the search starts (the reply's first words).
    return shown.length === 1 && source[from]?.text === shown[0] ? [from, from + 1] : [from, from];
  }
  for (let s = from; s + anchor <= source.length; s++) {
    let k = 0;
    while (k < anchor && source[s + k]!.text === shown[k]) k++;
    if (k < anchor) continue;
    let n = anchor;
    while (n < shown.length && s + n < source.length && source[s + n]!.text === shown[n]) n++;
    return [s, s + n];
  }
  return [from, from];
}

/** The reply's messages after the last call. */
function finalState(
  input: Parameters<typeof analyseVisibility>[0],
  tokensOf: (op: RecordedOp) => string[],
): { texts: string[][]; openStreams: number; statusLeft: boolean } {
  const messages = new Map<string, { tokens: string[]; raw: string; format: Dialect | undefined }>();
  const streams = new Set<string>();
  for (const op of input.ops) {
    if (!op.ok || op.op === 'typing' || op.messageId === undefined) continue;
    if (op.op === 'startStream') streams.add(op.messageId);
    else if (op.op === 'updateStream') continue;
    else if (op.op === 'delete') messages.delete(op.messageId);
    else if (!input.exclude.has(op.messageId)) {
      if (op.op === 'finishStream') streams.delete([...streams][0] ?? '');
      messages.set(op.messageId, { tokens: tokensOf(op), raw: op.text ?? '', format: op.format });
    }
  }
  const statusLeft = [...messages.values()].some((m) =>
    input.statusLines.some((s) => {
      const line = renderStatusLine(s, input.dialect(m.format));
      return line !== '' && m.raw.includes(line);
    }),
  );
  return { texts: [...messages.values()].map((m) => m.tokens), openStreams: streams.size, statusLeft };
}
