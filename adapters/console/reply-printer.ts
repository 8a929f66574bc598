/**
 * Prints a reply whose text keeps growing (the core streams it as whole
 * texts, rendered from half-written Markdown) so that it appears once:
 * whatever still reads the same is left alone and only the new part is
 * written. When the rendering of the end changes (a `[` that became a link,
 * a line that became a table), a terminal takes back just that changed end
 * and writes it anew; piped output, which cannot un-print, writes the
 * changed line again below. The core's status lines (tool activity) are
 * printed once each, dimmed, in the flow of the reply where they happened.
 */
import { dim, type Screen } from './screen.js';

/** The core's status line: the last line, after a blank line, starting with a tool mark. */
const STATUS_LINE = /(?:^|\n\n)([⚙✓✗⏹🚫🔎🌐][^\n]*)$/u;

/** Splits the status line (tool activity) off a reply's text. */
export function splitStatus(text: string): { body: string; status: string[] } {
  const match = STATUS_LINE.exec(text);
  if (!match) return { body: text.replace(/\s+$/, ''), status: [] };
  return { body: text.slice(0, match.index).replace(/\s+$/, ''), status: [match[1] ?? ''] };
}

/** One streamed reply on the screen. */
export class ReplyPrinter {
  /** Body characters settled above (before the last status line, or a line written again). */
  #offset = 0;
  /** The body text on screen after `#offset`. */
  #shown = '';
  /** Column where `#shown` starts. */
  #origin: number;
  #afterStatus = false;
  readonly #statusShown = new Set<string>();

  constructor(private readonly screen: Screen) {
    this.#origin = screen.column;
  }

  /** Brings the screen up to `text` (the whole reply so far, status lines last). */
  update(text: string): void {
    const { body, status } = splitStatus(text);
    this.#showBody(body);
    for (const line of status) {
      if (this.#statusShown.has(line)) continue;
      this.#statusShown.add(line);
      this.screen.line(`  ${dim(line, this.screen.tty)}`);
      // What is above a status line stays as it is; later text continues below it.
      this.#offset += this.#shown.length;
      this.#shown = '';
      this.#origin = this.screen.column;
      this.#afterStatus = true;
    }
  }

  /** Shows the final text and ends the reply on a fresh line. */
  end(text: string): void {
    this.update(text);
    if (this.screen.column !== 0) this.screen.write('\n');
  }

  #showBody(body: string): void {
    let fresh = body.slice(this.#offset);
    if (this.#afterStatus && this.#shown === '') {
      // The paragraph break after a status line is already there: the status line ended a line.
      const breaks = /^\n*/.exec(fresh)?.[0].length ?? 0;
      this.#offset += breaks;
      fresh = fresh.slice(breaks);
    }
    const shown = this.#shown;
    if (fresh === shown) return;
    if (fresh.startsWith(shown)) {
      this.screen.write(fresh.slice(shown.length));
      this.#shown = fresh;
      return;
    }
    let same = 0;
    while (same < shown.length && same < fresh.length && shown[same] === fresh[same]) same++;
    if (this.screen.takeBack(this.#origin, shown, same)) {
      this.screen.write(fresh.slice(same));
      this.#shown = fresh;
      return;
    }
    // Cannot un-print: write the changed line again, whole, below.
    const lineStart = fresh.lastIndexOf('\n', same - 1) + 1;
    this.screen.write(`\n${fresh.slice(lineStart)}`);
    this.#offset += lineStart;
    this.#shown = fresh.slice(lineStart);
    this.#origin = 0;
  }
}
