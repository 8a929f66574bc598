/**
 * Session ids and names come from chat input (`/resume ../../etc`), so both
 * are checked before they can reach a file name or a message.
 */
import { randomBytes } from 'node:crypto';
import { SwitchboardError } from '../errors.js';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const MAX_NAME_LENGTH = 64;
/** C0/C1 controls, line/paragraph separators and bidi overrides: they corrupt listings and logs. */
const FORBIDDEN_NAME_CHARS = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** A short, printable rendering of untrusted input for an error message. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  const cut = [...text].slice(0, 40).join('');
  // JSON.stringify escapes C0 controls but leaves bidi overrides and separators,
  // which would reorder the bot's own answer on screen: escape those too.
  return JSON.stringify(cut.length < text.length ? `${cut}…` : cut).replace(
    /[\u0080-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Checks a session id and returns it unchanged.
 *
 * @throws SwitchboardError `INVALID_NAME` unless the id is 1-64 letters, digits,
 *   `_` or `-`, starting with a letter or digit (so it can never name a path).
 */
export function validateSessionId(id: string): string {
  if (typeof id !== 'string' || !SESSION_ID.test(id)) {
    throw new SwitchboardError(
      'INVALID_NAME',
      `Session id ${shown(id)} is not valid: use 1 to 64 letters, digits, "_" or "-", starting with a letter or digit.`,
      { detail: { field: 'sessionId' } },
    );
  }
  return id;
}

/**
 * Checks a session name and returns it trimmed.
 *
 * @throws SwitchboardError `INVALID_NAME` unless the trimmed name is 1-64
 *   characters with no control characters, no `/` or `\` and no `..`.
 */
export function validateSessionName(name: string): string {
  const rule =
    'use 1 to 64 characters without control characters, "/", "\\" or "..", for example "refactor-parser"';
  if (typeof name !== 'string') {
    throw new SwitchboardError('INVALID_NAME', `Session name must be text: ${rule}.`, {
      detail: { field: 'sessionName' },
    });
  }
  const trimmed = name.trim();
  const length = [...trimmed].length;
  let problem: string | undefined;
  if (length === 0) problem = 'is empty';
  else if (length > MAX_NAME_LENGTH) problem = `is ${length} characters long`;
  else if (FORBIDDEN_NAME_CHARS.test(trimmed)) problem = 'contains a control character';
  else if (/[/\\]/.test(trimmed)) problem = 'contains a path separator';
  else if (trimmed.includes('..')) problem = 'contains ".."';
  if (problem !== undefined) {
    throw new SwitchboardError('INVALID_NAME', `Session name ${shown(name)} ${problem}: ${rule}.`, {
      detail: { field: 'sessionName' },
    });
  }
  return trimmed;
}

const TIME_DIGITS = 9; // base36 milliseconds stay 9 digits until the year 5188
let lastTime = 0;

/**
 * A new session id: base36 time (so ids sort by creation) and 6 random
 * base36 characters, e.g. `mi3k2v9qa-4fz1qk`. Ids made in the same
 * millisecond still sort in creation order.
 */
export function newSessionId(now: number = Date.now()): string {
  const time = Math.max(Math.floor(now), lastTime + 1);
  lastTime = time;
  const bytes = randomBytes(6);
  let suffix = '';
  for (const byte of bytes) suffix += (byte % 36).toString(36);
  return `${time.toString(36).padStart(TIME_DIGITS, '0')}-${suffix}`;
}
