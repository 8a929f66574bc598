/**
 * What the operator typed, made safe to hand on: terminal escape sequences
 * (arrow keys or function keys that got through, bracketed-paste markers,
 * colours pasted from another program) and other control characters never
 * reach the model or a command.
 */
import { stripVTControlCharacters } from 'node:util';

// C0 and C1 controls; an escape sequence the stripper did not know leaves its ESC here too.
const CONTROL = /\p{Cc}/gu;

/**
 * One typed line without escape sequences or control characters, trimmed.
 *
 * @example
 * cleanLine('\x1b[A\x1b[200~hello\x1b[201~'); // 'hello'
 */
export function cleanLine(raw: string): string {
  return stripVTControlCharacters(raw)
    .replace(CONTROL, (ch) => (ch === '\t' ? ch : ''))
    .trim();
}

/** A typed line, read as the chat would read it. */
export type TypedLine =
  | { kind: 'empty' }
  | { kind: 'command'; name: string; args: string }
  | { kind: 'choice'; index: number }
  | { kind: 'text'; text: string };

/**
 * Reads a cleaned line. A number is a choice only while `choices` buttons are
 * on offer (an approval waits); otherwise it is text like any other.
 */
export function readLine(line: string, choices: number): TypedLine {
  if (!line) return { kind: 'empty' };
  if (choices > 0 && /^\d{1,2}$/.test(line)) {
    const index = Number(line) - 1;
    if (index >= 0 && index < choices) return { kind: 'choice', index };
  }
  const command = /^\/(\w+)\s*([\s\S]*)$/.exec(line);
  if (command) return { kind: 'command', name: (command[1] ?? '').toLowerCase(), args: command[2] ?? '' };
  return { kind: 'text', text: line };
}
