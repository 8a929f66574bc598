/**
 * The terminal chat's line history, kept in a file between runs like a
 * shell's: newest line first, at most {@link HISTORY_SIZE} lines, readable
 * by the operator only. A file that cannot be read starts an empty history;
 * one that cannot be written costs only the history, never the chat.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** Lines kept, in memory and on disk. */
export const HISTORY_SIZE = 500;

/** The saved lines, newest first (readline's order); empty when there is no file. */
export function loadHistory(file: string | undefined): string[] {
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

/** Saves the lines (newest first); false when the file could not be written. */
export function saveHistory(file: string | undefined, lines: readonly string[]): boolean {
  if (!file) return true;
  try {
    writeFileSync(file, `${lines.slice(0, HISTORY_SIZE).join('\n')}\n`, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
