/**
 * The compact status line shown under a streaming reply ("⚙ Bash: npm test").
 */
import type { Dialect } from '../adapter-contract.js';
import { syntaxFor } from './dialects.js';

/** Longest status line shown; longer lines are cut with an ellipsis. */
const STATUS_MAX_CHARS = 100;

/** One line, cut to {@link STATUS_MAX_CHARS}, escaped and set in italics for `dialect`. */
export function renderStatusLine(line: string, dialect: Dialect): string {
  let flat = line.replace(/\s+/g, ' ').trim();
  if (flat.length > STATUS_MAX_CHARS) flat = `${flat.slice(0, STATUS_MAX_CHARS - 1)}…`;
  if (flat === '') return '';
  const s = syntaxFor(dialect);
  return s.emphasis(s.text(flat));
}
