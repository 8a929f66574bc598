/**
 * Matches a model-supplied regular expression line by line under a CPU time
 * limit. A pattern such as `(a+)+$` can backtrack for minutes on one line,
 * and Grep runs on the bot's only thread: without a limit one chat could
 * freeze every other. `vm` timeouts interrupt a running regular expression,
 * so each file is matched inside a script with a deadline.
 */
import { createContext, Script } from 'node:vm';
import { SwitchboardError } from '../errors.js';

/** Default CPU time one file may take. Real time on purpose: this guards the thread, it paces nothing. */
export const GREP_FILE_TIME_LIMIT_MS = 2_000;

const COMPILE = new Script('regex = new RegExp(source, flags);');
const MATCH = new Script(`(() => {
  lines = text.split(/\\r?\\n/);
  hits = [];
  for (let i = 0; i < lines.length && hits.length < max; i++) if (regex.test(lines[i])) hits.push(i);
})();`);

interface MatchContext {
  source: string;
  flags: string;
  text: string;
  max: number;
  lines: string[];
  hits: number[];
}

/** One regular expression, compiled once, matched against many files. */
export class LineMatcher {
  readonly #context: MatchContext;
  readonly #timeLimitMs: number;

  /** @throws SyntaxError when `source` is not a valid regular expression. */
  constructor(source: string, flags: string, timeLimitMs = GREP_FILE_TIME_LIMIT_MS) {
    // Compile here first so a bad pattern throws the ordinary SyntaxError.
    new RegExp(source, flags);
    this.#context = createContext({ source, flags, text: '', max: 0, lines: [], hits: [] }) as MatchContext;
    COMPILE.runInContext(this.#context);
    this.#timeLimitMs = timeLimitMs;
  }

  /**
   * The lines of `text` and the 0-based numbers of at most `max` matching ones.
   *
   * @throws SwitchboardError `TOOL_FAILED` when matching takes longer than the limit.
   */
  match(text: string, max: number): { lines: string[]; hits: number[] } {
    const context = this.#context;
    context.text = text;
    context.max = max;
    try {
      MATCH.runInContext(context, { timeout: this.#timeLimitMs });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
      throw new SwitchboardError(
        'TOOL_FAILED',
        `the pattern took over ${this.#timeLimitMs} ms on one file and was stopped; it probably backtracks ` +
          'without end (nested quantifiers such as (a+)+). Simplify the pattern.',
        { cause: err },
      );
    } finally {
      context.text = '';
    }
    return { lines: context.lines, hits: Array.from(context.hits) };
  }
}
