/**
 * Parsing the model's Markdown into one mdast tree (CommonMark + GFM tables,
 * strikethrough, task lists and bare-URL links), and healing a partial reply
 * so a half-written construct renders as what it will become instead of as
 * stray markers. Parsing costs time and stack linear in the text: nesting is
 * capped first (depth.ts), then markdown-it (linear by design) tokenizes.
 */
import MarkdownItCallable, { type MarkdownIt, type StateInline } from 'markdown-it';
import type { Root } from 'mdast';
import { capNesting } from './depth.js';
import { useCheapTables } from './table-rule.js';
import { tokensToTree } from './tokens-to-tree.js';

/**
 * Raw HTML is read as text (the dialects escape it anyway); `linkify` makes
 * URLs with a scheme links as GFM does. Schemeless `www.` and e-mail guesses
 * are left to the chat clients, which link them anyway: guessing them here
 * doubled the cost of a long table. `maxNesting` stays above what capNesting
 * lets through (8 containers per line, 32 columns of indentation), because
 * past it markdown-it drops the rest of the text instead of keeping it flat.
 */
const parser = new MarkdownItCallable('default', { html: false, linkify: true, maxNesting: 200 });
parser.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
skipHopelessLinks(parser);
useCheapTables(parser);

/**
 * markdown-it scans from every `[` to the end of the paragraph looking for
 * its `]`, so a paragraph of thousands of `[` with no `]` costs time squared
 * in its length. A `[` with no `]` anywhere after it can open no link or
 * image: answer "not a link" at once for it.
 */
function skipHopelessLinks(md: MarkdownIt): void {
  for (const name of ['link', 'image']) {
    const rule = md.inline.ruler.__rules__[md.inline.ruler.__find__(name)]?.fn;
    if (!rule) throw new Error(`markdown-it has no inline rule "${name}"`);
    // One inline state per paragraph: the last `]` of its source, found once.
    const lastClose = new WeakMap<StateInline, number>();
    const opener = name === 'link' ? 0x5b : 0x21;
    md.inline.ruler.at(name, (state, silent) => {
      // Asked at every position the text rule stops at: answer other characters before any lookup.
      if (state.src.charCodeAt(state.pos) !== opener) return false;
      let close = lastClose.get(state);
      if (close === undefined) {
        close = state.src.lastIndexOf(']');
        lastClose.set(state, close);
      }
      return close > state.pos && rule(state, silent);
    });
  }
}

/** Parses Markdown into an mdast tree; linear in the length of `md`. */
export function parseMarkdown(md: string): Root {
  return tokensToTree(parser.parse(capNesting(md), {}));
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
  // Scanned by hand, not with a backtracking regex: a line of 40,000 `[`
  // would cost a regex time quadratic in its length.
  const lineStart = tail.lastIndexOf('\n') + 1;
  const line = tail.slice(lineStart);
  const half = halfLinkStart(line);
  if (half === undefined) return tail;
  const labelEnd = line.indexOf(']', half.label);
  const label = line.slice(half.label, labelEnd < 0 ? line.length : labelEnd);
  return tail.slice(0, lineStart + half.at) + label;
}

/**
 * Where the leftmost unfinished link of `line` starts: `[label](target` with
 * no `)` after, else `[label` with no `]` after. `at` includes a leading `!`.
 */
function halfLinkStart(line: string): { at: number; label: number } | undefined {
  const lastParen = line.lastIndexOf(')');
  let from = 0;
  for (;;) {
    const j = line.indexOf('](', Math.max(from, lastParen + 1));
    if (j < 0) break;
    // The label cannot hold `]`: its `[` comes after the `]` before this one.
    const open = line.indexOf('[', Math.max(from, line.lastIndexOf(']', j - 1) + 1));
    if (open >= 0 && open < j) return withBang(line, open);
    from = j + 1;
  }
  const open = line.indexOf('[', line.lastIndexOf(']') + 1);
  return open < 0 ? undefined : withBang(line, open);
}

function withBang(line: string, open: number): { at: number; label: number } {
  return { at: open > 0 && line[open - 1] === '!' ? open - 1 : open, label: open + 1 };
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
