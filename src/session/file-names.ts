/**
 * Names for files people send: the platform's name is text from a stranger,
 * so it never becomes a path as it is. It is cut to its last component,
 * stripped of control and format characters (bidi overrides included) and of
 * everything but letters, digits, `.`, `_` and `-`, bounded in bytes, and put
 * after the date, so the saved name never starts with a dot or a dash and
 * never holds a `/` or `..`. A name already taken gets a numbered suffix.
 */
import { randomUUID } from 'node:crypto';

/** The folder of the workspace where received files are saved. */
export const UPLOADS_DIR = 'uploads';

/** Longest saved name in UTF-8 bytes (Linux allows 255; room is left for the date and a suffix). */
const MAX_NAME_BYTES = 120;
const MAX_EXTENSION_CHARS = 16;
/** Numbered names tried before a random suffix. */
const NUMBERED_TRIES = 20;

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character. */
function cutToBytes(text: string, maxBytes: number): string {
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > maxBytes) break;
    out += char;
  }
  return out;
}

/** The sender's name made safe for a file name, without the date: `report.csv`, `file` when nothing is left. */
export function safeBaseName(name: string | undefined): string {
  const last = (name ?? '').normalize('NFC').split(/[/\\]/).at(-1) ?? '';
  const cleaned = last
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/_{2,}/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._-]+/, '')
    .replace(/[._-]+$/, '');
  const dot = cleaned.lastIndexOf('.');
  const hasExtension = dot > 0 && cleaned.length - dot - 1 <= MAX_EXTENSION_CHARS;
  const stem = hasExtension ? cleaned.slice(0, dot) : cleaned;
  const extension = hasExtension ? cleaned.slice(dot) : '';
  const cut = cutToBytes(stem, MAX_NAME_BYTES - Buffer.byteLength(extension)).replace(/[._-]+$/, '');
  return `${cut || 'file'}${extension}`;
}

/**
 * The names to try, in order, for a file saved on `date` (YYYY-MM-DD),
 * with `fallbackExtension` (`.png`) added when the name has none:
 * `2026-12-01-report.csv`, then `2026-12-01-report-2.csv` ... and last one
 * with a random suffix, so a folder full of same-named files still takes it.
 */
export function candidateNames(name: string | undefined, date: string, fallbackExtension?: string): string[] {
  const named = safeBaseName(name);
  // A name without an extension (a Telegram photo has no name at all) takes the one its content shows.
  const base = fallbackExtension && !/\.[^.]+$/.test(named) ? `${named}${fallbackExtension}` : named;
  const dot = base.lastIndexOf('.');
  const stem = `${date}-${dot > 0 ? base.slice(0, dot) : base}`;
  const extension = dot > 0 ? base.slice(dot) : '';
  const names = [`${stem}${extension}`];
  for (let n = 2; n <= NUMBERED_TRIES; n++) names.push(`${stem}-${n}${extension}`);
  names.push(`${stem}-${randomUUID().slice(0, 8)}${extension}`);
  return names;
}

/**
 * The sender's name as the model and the chat are shown it: quoted and
 * escaped (JSON string rules, so quotes, backslashes and control characters
 * cannot break out), bidi and other format characters removed, bounded.
 */
export function shownName(name: string | undefined): string {
  const clean = (name ?? '').replace(/\p{Cf}/gu, '').trim();
  if (!clean) return 'an unnamed file';
  return JSON.stringify(clean.length > 120 ? `${clean.slice(0, 119)}…` : clean);
}
