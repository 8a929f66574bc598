/**
 * A fast path for the commonest text a model streams: plain prose with no
 * Markdown syntax at all. Such text parses to a single paragraph holding one
 * text node, so its rendering is the dialect's escaping of the trimmed text;
 * skipping the parser for it takes the largest share of CPU off each live
 * edit. Anything that could be syntax in any position falls back to the
 * parser, so the output is always what the parser would give.
 */
import type { Dialect } from '../adapter-contract.js';
import { syntaxFor } from './dialects.js';

/**
 * Characters that never start or close a Markdown or GFM construct in the
 * middle of a line. Left out on purpose: `` ` * _ ~ [ ] \ < > & | # @ ``
 * (inline syntax, escapes, references, HTML, tables, email autolinks), tab
 * and carriage return.
 */
const PROSE = /^[A-Za-z0-9 \n,.;:'"?!()/%$+=-]*$/;
/** A line that starts with anything but a letter might be a list, heading, break or indented code. */
const RISKY_LINE_START = /(^|\n)[^A-Za-z\n]/;
/** Trailing spaces before a newline may be a hard break; `www.` and `://` become autolinks. */
const RISKY_SEQUENCE = /( \n|www\.|:\/\/)/i;

/**
 * The rendering of `md` in `dialect` when it is one paragraph of plain prose
 * (possibly followed by blank lines), else undefined. Identical to
 * `renderBlocks(parseMarkdown(md), dialect)` whenever it returns a string
 * (prose has no whitespace at its ends for a whole render to trim, so it
 * also stands for a piece of a document); a partial reply needs no healing
 * here, as there is nothing to close.
 */
export function renderPlainProse(md: string, dialect: Dialect): string | undefined {
  if (!PROSE.test(md) || RISKY_LINE_START.test(md) || RISKY_SEQUENCE.test(md)) return undefined;
  const body = md.trimEnd();
  // A blank line inside would make two paragraphs, joined differently by each dialect.
  if (body.includes('\n\n')) return undefined;
  return syntaxFor(dialect).text(body).trim();
}
