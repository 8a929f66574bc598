/**
 * The terminal's screen, shared by the prompt (node:readline) and the bot's
 * output. The prompt sits on the last line while nothing streams; before the
 * bot writes, the prompt and whatever the person was typing are cleared, and
 * drawn again after, so the bot's text never lands inside the input line.
 * While a reply streams the prompt stays hidden and readline's echo is held
 * back (what the person types is kept and shown when the reply ends).
 *
 * On a terminal the screen can also take back the end of what it wrote (a
 * half-written Markdown line whose rendering changed): it knows where each
 * character landed, wrapping included, and moves the cursor there.
 */
import { Writable } from 'node:stream';
import stringWidth from 'string-width';

/** Where text lands: how many rows it moved down and the column it ends at. */
interface Position {
  rows: number;
  col: number;
}

/** The part of node:readline the screen drives. */
export interface PromptLine {
  prompt(preserveCursor?: boolean): void;
  getCursorPos(): { rows: number; cols: number };
}

const ESC = '\x1b[';
/** How a line typed during a reply is shown once the reply is done. */
const PROMPT_ECHO = '› ';

/** `text` dimmed on a terminal (the chat's secondary lines: tool activity, context used). */
export function dim(text: string, tty: boolean): string {
  return tty ? `\x1b[2m${text}\x1b[22m` : text;
}

/** Where the cursor ends after writing `text` from column `col` on a `width`-column terminal. */
export function advance(from: Position, text: string, width: number): Position {
  let { rows, col } = from;
  for (const ch of text) {
    if (ch === '\n') {
      rows++;
      col = 0;
      continue;
    }
    const w = stringWidth(ch);
    // A terminal wraps lazily: the cursor waits at the edge until the next character.
    if (col + w > width) {
      rows++;
      col = 0;
    }
    col += w;
  }
  return { rows, col };
}

/** The output side of a terminal chat. */
export class Screen {
  readonly tty: boolean;
  /** Give this to readline as its output: it is muted while the prompt is hidden. */
  readonly promptOutput: Writable;
  #prompt: PromptLine | undefined;
  #promptShown = false;
  #held = 0;
  #typedMeanwhile: string[] = [];
  /** Column the cursor is at, as far as the bot's own output goes. */
  #col = 0;

  constructor(private readonly out: NodeJS.WritableStream) {
    this.tty = (out as NodeJS.WriteStream).isTTY === true;
    const screen = this;
    const muted = new Writable({
      write(chunk, _enc, done) {
        if (screen.#promptShown) out.write(chunk);
        done();
      },
    });
    // readline reads these to lay out the input line.
    Object.defineProperty(muted, 'columns', { get: () => screen.columns });
    Object.defineProperty(muted, 'rows', { get: () => (out as NodeJS.WriteStream).rows ?? 24 });
    Object.defineProperty(muted, 'isTTY', { get: () => screen.tty });
    (out as NodeJS.WriteStream).on?.('resize', () => muted.emit('resize'));
    this.promptOutput = muted;
  }

  /** The terminal's width in columns (80 when unknown). */
  get columns(): number {
    return (this.out as NodeJS.WriteStream).columns || 80;
  }

  /** Connects the input line; until then there is no prompt to show. */
  attach(prompt: PromptLine): void {
    this.#prompt = prompt;
  }

  /** Writes the bot's text, with the prompt out of the way. */
  write(text: string): void {
    if (!text) return;
    this.#hidePrompt();
    this.out.write(text);
    this.#col = advance({ rows: 0, col: this.#col }, text, this.columns).col;
  }

  /** Writes whole lines: starts on a fresh line and ends with a newline. */
  line(text: string): void {
    this.write(`${this.#col === 0 ? '' : '\n'}${text}\n`);
  }

  /** Keeps the prompt hidden (a reply is streaming) until the matching {@link Screen.release}. */
  hold(): void {
    this.#held++;
    this.#hidePrompt();
  }

  /** Ends one {@link Screen.hold}; the prompt comes back when none is left. */
  release(): void {
    this.#held = Math.max(0, this.#held - 1);
    this.showPrompt();
  }

  /** Draws the prompt (with what was typed so far) on a fresh line, unless a reply is streaming. */
  showPrompt(): void {
    // Piped output gets no prompt: there is nobody typing at it.
    if (!this.tty || this.#held > 0 || this.#promptShown || !this.#prompt) return;
    if (this.#col !== 0) this.write('\n');
    for (const line of this.#typedMeanwhile.splice(0)) this.write(`${PROMPT_ECHO}${line}\n`);
    this.#promptShown = true;
    this.#prompt.prompt(true);
  }

  /**
   * Takes back the end of what was written: `written` is the text since
   * `origin` (where it started on screen), `keep` how many characters of it
   * stay. False when that is not possible here (not a terminal, or the part
   * has scrolled away); nothing is changed then.
   */
  takeBack(origin: number, written: string, keep: number): boolean {
    if (!this.tty || this.#promptShown) return false;
    const width = this.columns;
    const start = { rows: 0, col: origin };
    const end = advance(start, written, width);
    let at = advance(start, written.slice(0, keep), width);
    if (at.col >= width) at = { rows: at.rows + 1, col: 0 };
    const up = end.rows - at.rows;
    if (up >= ((this.out as NodeJS.WriteStream).rows ?? 24) - 1) return false;
    this.out.write(`${up > 0 ? `${ESC}${up}A` : ''}\r${at.col > 0 ? `${ESC}${at.col}C` : ''}${ESC}J`);
    this.#col = at.col;
    return true;
  }

  /** The column the next character of the bot's text lands in. */
  get column(): number {
    return this.#col;
  }

  /**
   * The input line was submitted (Enter). Shown, it stays on screen as the
   * transcript of what was said; typed while a reply streamed (unseen), it
   * is written out when the prompt comes back.
   */
  promptSubmitted(line: string): void {
    if (this.#promptShown) {
      this.#promptShown = false;
      this.#col = 0;
    } else if (this.tty) {
      this.#typedMeanwhile.push(line);
    }
  }

  #hidePrompt(): void {
    if (!this.#promptShown) return;
    const prompt = this.#prompt;
    if (prompt && this.tty) {
      const { rows } = prompt.getCursorPos();
      this.out.write(`\r${rows > 0 ? `${ESC}${rows}A` : ''}${ESC}J`);
    }
    this.#promptShown = false;
    this.#col = 0;
  }
}
