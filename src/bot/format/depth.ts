/**
 * Capping how deeply the model's Markdown can nest before it is parsed. A
 * reply of 3,000 `>` or `1. ` × 2,000 is a few kilobytes, yet as nested
 * containers it costs any tree-building parser (and any renderer walking the
 * tree) time and stack in proportion to the depth squared. Nesting only opens
 * at the start of a line, so the cap is a per-line rewrite: past
 * {@link MAX_CONTAINERS_PER_LINE} container markers the next marker is
 * escaped and the rest of the line is read as plain text, and indentation
 * (which nests list items across lines) is cut to {@link MAX_INDENT}
 * columns. Nothing is dropped: the excess stays in the text, unformatted.
 */
import { type FenceState, stepFence } from './split.js';

/** Container markers (`>`, `-`, `*`, `+`, `1.`, `1)`) honoured at the start of one line. */
export const MAX_CONTAINERS_PER_LINE = 8;
/** Leading columns kept on a line outside code fences (a tab counts as 4). */
export const MAX_INDENT = 32;

/** One container marker at the start of what is left of a line, with the spaces after it. */
const CONTAINER = /^(>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))[ \t]*/;
const INDENT = /^[ \t]*/;

/**
 * `md` with container nesting capped per line and indentation capped outside
 * code fences; returns `md` itself (no copy) when nothing needed capping.
 * Linear in the length of `md`.
 */
export function capNesting(md: string): string {
  let out: string[] | undefined;
  let fence: FenceState | undefined;
  let pos = 0;
  let lineNo = 0;
  while (pos <= md.length) {
    let nl = md.indexOf('\n', pos);
    if (nl < 0) nl = md.length;
    const line = md.slice(pos, nl);
    const capped = fence === undefined ? capLine(line) : line;
    if (capped !== line && out === undefined) out = md.slice(0, pos).split('\n').slice(0, lineNo);
    if (out !== undefined) out.push(capped);
    fence = stepFence(line, fence);
    lineNo++;
    pos = nl + 1;
  }
  return out === undefined ? md : out.join('\n');
}

function capLine(line: string): string {
  const indent = INDENT.exec(line)![0];
  let head = indent;
  if (columns(indent) > MAX_INDENT) head = ' '.repeat(MAX_INDENT);
  let rest = line.slice(indent.length);
  let markers = 0;
  let kept = '';
  for (;;) {
    const m = CONTAINER.exec(rest);
    if (!m) break;
    if (markers === MAX_CONTAINERS_PER_LINE) {
      // A backslash before the marker makes it literal text, and with it the rest of the line.
      const marker = m[1]!;
      kept += `${marker.slice(0, -1)}\\${marker.slice(-1)}`;
      rest = rest.slice(marker.length);
      break;
    }
    markers++;
    // The spaces after a marker are indentation too: cap them the same way.
    const spaces = m[0].slice(m[1]!.length);
    kept += m[1]! + (columns(spaces) > MAX_INDENT ? ' '.repeat(MAX_INDENT) : spaces);
    rest = rest.slice(m[0].length);
  }
  const capped = head + kept + rest;
  return capped === line ? line : capped;
}

function columns(ws: string): number {
  let n = 0;
  for (const ch of ws) n += ch === '\t' ? 4 - (n % 4) : 1;
  return n;
}
