/**
 * The one way a piece of the model's Markdown becomes a dialect's text:
 * the plain-prose fast path, healing when the reply is still being written,
 * then parse and render. Whatever happens inside, a reply is never lost to
 * its formatting: if parsing or rendering throws, the same text goes out as
 * the dialect's escaped literal text.
 */
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { syntaxFor } from './dialects.js';
import { healPartialMarkdown, parseMarkdown } from './parse.js';
import { renderPlainProse } from './plain.js';
import { renderBlocks } from './render.js';

/**
 * How much text has gone through {@link renderSource} in this process. The
 * rendering benchmark reads it around a streamed reply to show how much of
 * the reply was rendered more than once; nothing else depends on it.
 */
export const renderWork = { calls: 0, chars: 0 };

/**
 * Renders `md` in `dialect`; `partial` heals a reply still being written;
 * `mentions` says which mentions stay mentions. Never throws.
 */
export function renderSource(
  md: string,
  dialect: Dialect,
  partial: boolean,
  mentions: MentionPolicy = 'none',
): string {
  return renderSourceBlocks(md, dialect, partial, mentions).trim();
}

/**
 * {@link renderSource} for a piece of a document: the ends are not trimmed
 * (see `renderBlocks`), so pieces joined and then trimmed render as the
 * whole document does. Never throws.
 */
export function renderSourceBlocks(
  md: string,
  dialect: Dialect,
  partial: boolean,
  mentions: MentionPolicy = 'none',
): string {
  renderWork.calls++;
  renderWork.chars += md.length;
  // Plain prose starts with a letter and the parser drops a paragraph's trailing spaces: nothing to trim.
  const prose = renderPlainProse(md, dialect);
  if (prose !== undefined) return prose;
  try {
    return renderBlocks(parseMarkdown(partial ? healPartialMarkdown(md) : md), dialect, mentions);
  } catch {
    return syntaxFor(dialect).text(md).trim();
  }
}
