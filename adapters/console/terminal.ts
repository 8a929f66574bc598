/**
 * Prints a message whose text keeps growing (a streamed reply) to a terminal
 * that cannot un-print: only the new part of the body is written, and the
 * core's status lines (tool activity) are printed once each as they change.
 */

const STATUS_LINE = /^[⚙✓✗⏹🔐⚠]/u;

/** Splits trailing status lines off a message's text. */
export function splitStatus(text: string): { body: string; status: string[] } {
  const lines = text.split('\n');
  const status: string[] = [];
  while (lines.length > 0 && STATUS_LINE.test(lines[lines.length - 1] ?? ''))
    status.unshift(lines.pop() ?? '');
  return { body: lines.join('\n').replace(/\s+$/, ''), status };
}

/** Tracks what has been printed of one message and writes only what is new. */
export class GrowingMessage {
  #printedBody = '';
  #printedStatus = new Set<string>();

  constructor(private readonly write: (s: string) => void) {}

  /** Writes the part of `text` not yet on screen. */
  update(text: string): void {
    const { body, status } = splitStatus(text);
    if (body.startsWith(this.#printedBody)) {
      const fresh = body.slice(this.#printedBody.length);
      if (fresh) this.write(fresh);
    } else if (body !== this.#printedBody) {
      // The text changed in place (a rare re-render): show the new version whole.
      this.write(`\n${body}`);
    }
    this.#printedBody = body;
    for (const line of status) {
      if (this.#printedStatus.has(line)) continue;
      this.#printedStatus.add(line);
      this.write(`\n  ${line}\n`);
      // Text that follows a status line starts on a fresh line.
    }
  }

  /** Ends the message with a newline. */
  end(text: string): void {
    this.update(text);
    this.write('\n');
  }
}
