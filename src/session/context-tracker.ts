/**
 * ContextWindowTracker: how much of the model's context window the session
 * uses. The provider's reported usage is the truth right after a reply; once
 * messages were added that the model has not seen, the tracker takes the
 * largest of a content-based estimate, the last reported figure and a floor
 * the caller supplies, so a big unsent prompt is never hidden.
 */
import type { ContentBlock, ContextWindowState, HistoryMessage, TokenUsage } from './types.js';

/** Rough tokens for one image: the API bills ~1,600 for a typical photo. */
const IMAGE_TOKENS = 1_600;

/** Characters of a block that reach the model (content only: no ids, no metadata). */
function blockChars(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return block.text.length;
    case 'image':
      return IMAGE_TOKENS * 4;
    case 'tool_use':
      return block.name.length + JSON.stringify(block.input).length;
    case 'tool_result':
      return block.content.length;
  }
}

/** Estimated tokens of messages: their content's characters / 4. */
export function estimateTokens(messages: readonly Pick<HistoryMessage, 'content'>[]): number {
  let chars = 0;
  for (const m of messages) for (const b of m.content) chars += blockChars(b);
  return Math.ceil(chars / 4);
}

/** Total tokens a reply's usage accounts for: input, cache and output. */
export function usageTotal(usage: TokenUsage): number {
  return (
    usage.inputTokens +
    (usage.cacheReadInputTokens ?? 0) +
    (usage.cacheCreationInputTokens ?? 0) +
    usage.outputTokens
  );
}

/** Builds a state from used and max tokens, percentages rounded to 0.1. */
export function contextState(usedTokens: number, maxTokens: number): ContextWindowState {
  const used = Math.max(0, Math.round(usedTokens));
  const pct = maxTokens > 0 ? Math.round((used / maxTokens) * 1000) / 10 : 0;
  return {
    maxTokens,
    usedTokens: used,
    usedPercentage: pct,
    remainingPercentage: Math.round((100 - pct) * 10) / 10,
  };
}

/** Options for {@link ContextWindowTracker}. */
export interface ContextTrackerOptions {
  maxTokens: number;
  /** Restores tracking on resume: the last reported usage ... */
  reportedTokens?: number;
  /** ... and how many history messages it covered. */
  reportedAtLength?: number;
}

/**
 * @example
 * const tracker = new ContextWindowTracker({ maxTokens: 200_000 });
 * tracker.reportUsage(usage, history.length); // after a reply
 * tracker.update(history);                    // after adding a prompt
 * tracker.getState().usedPercentage;
 */
export class ContextWindowTracker {
  #maxTokens: number;
  #reported: number | undefined;
  #reportedAt = 0;
  #used = 0;

  constructor(options: ContextTrackerOptions) {
    this.#maxTokens = options.maxTokens;
    if (options.reportedTokens !== undefined) {
      this.#reported = options.reportedTokens;
      this.#reportedAt = options.reportedAtLength ?? 0;
      this.#used = options.reportedTokens;
    }
  }

  /** The provider reported `usage` for a reply; the history now has `historyLength` messages. */
  reportUsage(usage: TokenUsage, historyLength: number): ContextWindowState {
    this.#reported = usageTotal(usage);
    this.#reportedAt = historyLength;
    this.#used = this.#reported;
    return this.getState();
  }

  /**
   * Recomputes usage for `history`. With no messages since the last report
   * the report stands; otherwise the max of estimate, report and `floor`.
   */
  update(history: readonly HistoryMessage[], floor = 0): ContextWindowState {
    this.#used = this.measure(history, floor);
    return this.getState();
  }

  /** What {@link update} would compute, without changing the tracker. */
  measure(history: readonly HistoryMessage[], floor = 0): number {
    if (this.#reported !== undefined && history.length === this.#reportedAt)
      return Math.max(this.#reported, floor);
    return Math.max(estimateTokens(history), this.#reported ?? 0, floor);
  }

  /** Forgets reported usage (after compaction) and re-estimates from `history`. */
  reset(history: readonly HistoryMessage[]): ContextWindowState {
    this.#reported = undefined;
    this.#reportedAt = 0;
    this.#used = estimateTokens(history);
    return this.getState();
  }

  /** The model changed: same usage, another window. */
  setMaxTokens(maxTokens: number): void {
    this.#maxTokens = maxTokens;
  }

  /** Last reported usage, for persisting (undefined until a reply arrives). */
  get reportedTokens(): number | undefined {
    return this.#reported;
  }

  getState(): ContextWindowState {
    return contextState(this.#used, this.#maxTokens);
  }
}
