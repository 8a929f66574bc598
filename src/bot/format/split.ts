/**
 * Splitting long Markdown into message-sized parts: at a paragraph boundary,
 * else a line boundary, else a space; never silently inside a code fence (a
 * part that ends inside one closes it, the next reopens it with its
 * language). Each part is an exact slice of the source plus those added fence
 * lines, so the parts together hold exactly the original text.
 */

/** An open code fence at some point of the text. */
export interface FenceState {
  /** Leading whitespace of the fence line. */
  indent: string;
  /** The fence run (```` ``` ```` or `~~~`, possibly longer). */
  marker: string;
  /** The info string (language) after the opening run. */
  info: string;
}

/** One part of a split text. */
export interface SplitPart {
  /** Source offsets of the slice this part holds. */
  start: number;
  end: number;
  /** Added before the slice: the reopened fence line, or ''. */
  prefix: string;
  /** Added after the slice: the closing fence line, or ''. */
  suffix: string;
  /** prefix + slice + suffix. */
  text: string;
  /** The fence open at `end` (carried into the next part), if any. */
  fenceAtEnd: FenceState | undefined;
}

const FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;

/** Applies one line to the fence state (`undefined`: outside any fence). */
export function stepFence(line: string, fence: FenceState | undefined): FenceState | undefined {
  const m = FENCE.exec(line);
  if (!m) return fence;
  const [, indent = '', marker = '', rest = ''] = m;
  if (fence === undefined) {
    if (marker[0] === '`' && rest.includes('`')) return fence;
    return { indent, marker, info: rest.trim() };
  }
  if (marker[0] === fence.marker[0] && marker.length >= fence.marker.length && rest.trim() === '') {
    return undefined;
  }
  return fence;
}

/** The fence open at offset `to`, scanning from `from` where `fence` was open. */
export function fenceStateAt(
  md: string,
  from: number,
  fence: FenceState | undefined,
  to: number,
): FenceState | undefined {
  let state = fence;
  let pos = from;
  while (pos < to) {
    const nl = md.indexOf('\n', pos);
    if (nl < 0 || nl >= to) {
      // A line still being written counts once it is complete; an unfinished
      // fence line at `to` does not open or close anything yet.
      break;
    }
    state = stepFence(md.slice(pos, nl), state);
    pos = nl + 1;
  }
  return state;
}

const openLine = (f: FenceState) => `${f.indent}${f.marker}${f.info}\n`;

/**
 * The first part of `md` starting at `start` (where `fence` is open) that
 * fits in `maxLength` characters including added fence lines.
 */
export function nextSplit(
  md: string,
  start: number,
  fence: FenceState | undefined,
  maxLength: number,
): SplitPart {
  const prefix = fence ? openLine(fence) : '';
  const budget = Math.max(1, maxLength - prefix.length);
  if (md.length - start <= budget) {
    return make(md, start, md.length, prefix, '', fenceStateAt(md, start, fence, md.length));
  }
  const limit = start + budget;
  let paragraph = -1;
  let lineOut = -1;
  let lineIn = -1;
  let lineInFence: FenceState | undefined;
  let state = fence;
  let pos = start;
  while (pos < limit) {
    const nl = md.indexOf('\n', pos);
    if (nl < 0 || nl >= limit) break;
    const line = md.slice(pos, nl);
    state = stepFence(line, state);
    const split = nl + 1;
    const closing = state ? state.indent.length + state.marker.length : 0;
    if (split - start + closing <= budget) {
      if (state) {
        lineIn = split;
        lineInFence = state;
      } else {
        lineOut = split;
        if (line.trim() === '' && split - start > 1) paragraph = split;
      }
    }
    pos = split;
  }
  const pick = (at: number, minFill: number) => at > start && at - start >= budget * minFill;
  let end = -1;
  if (pick(paragraph, 0.5)) end = paragraph;
  else if (pick(lineOut, 0.3)) end = lineOut;
  else if (pick(lineIn, 0.3)) end = lineIn;
  if (end < 0) {
    // No good line boundary: a space, keeping the word whole.
    const lineStart = Math.max(pos, start);
    const inFence = state;
    const reserve = inFence ? 1 + inFence.indent.length + inFence.marker.length : 0;
    const space = md.lastIndexOf(' ', limit - reserve - 1);
    if (space >= lineStart && space + 1 - start >= budget * 0.3) {
      return make(md, start, space + 1, prefix, inFence ? closeMid(inFence) : '', inFence);
    }
    if (paragraph > start) end = paragraph;
    else if (lineOut > start) end = lineOut;
    else if (lineIn > start) end = lineIn;
    else {
      let cut = Math.max(start + 1, limit - reserve);
      const code = md.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff && cut - 1 > start) cut--;
      return make(md, start, cut, prefix, inFence ? closeMid(inFence) : '', inFence);
    }
  }
  const atEnd = end === lineIn ? lineInFence : end === lineOut || end === paragraph ? undefined : state;
  return make(md, start, end, prefix, atEnd ? `${atEnd.indent}${atEnd.marker}` : '', atEnd);
}

const closeMid = (f: FenceState) => `\n${f.indent}${f.marker}`;

function make(
  md: string,
  start: number,
  end: number,
  prefix: string,
  suffix: string,
  fenceAtEnd: FenceState | undefined,
): SplitPart {
  return { start, end, prefix, suffix, text: prefix + md.slice(start, end) + suffix, fenceAtEnd };
}

/** Splits `md` into parts of at most `maxLength` characters (see {@link nextSplit}). */
export function splitMarkdownParts(md: string, maxLength: number): SplitPart[] {
  const parts: SplitPart[] = [];
  let start = 0;
  let fence: FenceState | undefined;
  while (start < md.length) {
    const part = nextSplit(md, start, fence, maxLength);
    parts.push(part);
    start = part.end;
    fence = part.fenceAtEnd;
  }
  return parts;
}

/**
 * Splits Markdown into chunks of at most `maxLength` characters at paragraph,
 * line or word boundaries, closing and reopening code fences across chunks.
 *
 * @example
 * splitMarkdown(longReply, 4000).forEach((chunk) => send(chunk));
 */
export function splitMarkdown(md: string, maxLength: number): string[] {
  return splitMarkdownParts(md, maxLength).map((p) => p.text);
}
