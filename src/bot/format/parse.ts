/**
 * Parsing the model's Markdown into one mdast tree (CommonMark + GFM), and
 * healing a partial reply so a half-written construct renders as what it
 * will become instead of as stray markers.
 */
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

const micromarkExtensions = [gfm()];
const mdastExtensions = [gfmFromMarkdown()];

/** Parses Markdown (with GFM tables, strikethrough, task lists, autolinks) into an mdast tree. */
export function parseMarkdown(md: string): Root {
  return fromMarkdown(md, { extensions: micromarkExtensions, mdastExtensions });
}

const FENCE_LINE = /^[ \t]*(`{3,}|~{3,})/;

/**
 * Closes what a streaming reply has opened but not yet closed in its last
 * paragraph: inline code, `**`, `__`, `~~`, and drops the syntax of a link
 * whose target is still being written. Only the tail is inspected, so this
 * is cheap; an open code fence needs nothing (the parser runs it to the end).
 */
export function healPartialMarkdown(md: string): string {
  const tailStart = Math.max(md.lastIndexOf('\n\n'), 0);
  // Inside an open fence the tail is code: leave it untouched.
  if (insideOpenFence(md)) return md;
  let tail = md.slice(tailStart);
  const head = md.slice(0, tailStart);
  tail = dropHalfLink(tail);
  const stack: { marker: string; at: number }[] = [];
  let i = 0;
  while (i < tail.length) {
    const ch = tail[i];
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === '`') {
      let run = 1;
      while (tail[i + run] === '`') run++;
      const marker = '`'.repeat(run);
      const close = tail.indexOf(marker, i + run);
      if (close < 0) {
        stack.push({ marker, at: i });
        break;
      }
      i = close + run;
      continue;
    }
    const pair = tail.slice(i, i + 2);
    if (pair === '**' || pair === '__' || pair === '~~') {
      const top = stack[stack.length - 1];
      if (top && top.marker === pair) stack.pop();
      else stack.push({ marker: pair, at: i });
      i += 2;
      continue;
    }
    i++;
  }
  if (stack.length === 0) return head + tail;
  // An opener with nothing after it yet is dropped rather than closed.
  let body = tail;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const after = body.slice(top.at + top.marker.length);
    if (after.trim() === '') {
      body = body.slice(0, top.at) + after;
      stack.pop();
    } else break;
  }
  body = body.replace(/\s+$/, '');
  for (let k = stack.length - 1; k >= 0; k--) body += stack[k]!.marker;
  return head + body;
}

function dropHalfLink(tail: string): string {
  // `[text](http://exa` -> `text`; `[text` -> `text` (only when on the last line).
  const lineStart = tail.lastIndexOf('\n') + 1;
  const line = tail.slice(lineStart);
  const halfTarget = /!?\[([^\]]*)\]\([^)]*$/.exec(line);
  if (halfTarget) return tail.slice(0, lineStart + halfTarget.index) + halfTarget[1];
  const halfLabel = /!?\[([^\]]*)$/.exec(line);
  if (halfLabel) return tail.slice(0, lineStart + halfLabel.index) + halfLabel[1];
  return tail;
}

function insideOpenFence(md: string): boolean {
  let open: string | undefined;
  let start = 0;
  while (start <= md.length) {
    let end = md.indexOf('\n', start);
    if (end < 0) end = md.length;
    const m = FENCE_LINE.exec(md.slice(start, Math.min(end, start + 200)));
    if (m) {
      const marker = m[1]!;
      if (open === undefined) open = marker;
      else if (marker[0] === open[0] && marker.length >= open.length) open = undefined;
    }
    start = end + 1;
  }
  return open !== undefined;
}
