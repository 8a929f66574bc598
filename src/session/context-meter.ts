/**
 * The context meter: the tracker plus what it takes to tell the truth about
 * the window. It adds the system prompt and tool definitions to the
 * estimate, lets the token-counting endpoint decide near the compaction
 * threshold and the guard (where an estimate that is a few percent off
 * changes what happens), and reports every change as `context_update`.
 */
import { type ContextWindowTracker, estimateTextTokens } from './context-tracker.js';
import { toProviderMessages } from './history.js';
import type { ModelCall } from './model-call.js';
import type { ContextWindowState, HistoryMessage, TokenUsage } from './types.js';

/** Within this share below a line (threshold or guard), the counting endpoint is asked. */
export const COUNT_MARGIN = 0.15;

/** What a request carries besides the history, which the meter measures. */
type ModelCallFrame = Pick<ModelCall, 'provider' | 'model' | 'system' | 'tools'>;

/** Measures the session's use of the context window; see the file comment. */
export class ContextMeter {
  readonly tracker: ContextWindowTracker;
  readonly #onChange: (state: ContextWindowState) => void;

  constructor(tracker: ContextWindowTracker, onChange: (state: ContextWindowState) => void) {
    this.tracker = tracker;
    this.#onChange = onChange;
  }

  /** Counts the system prompt and tool definitions into every estimate from now on. */
  frame(frame: Omit<ModelCallFrame, 'provider' | 'model'>): void {
    this.tracker.setOverhead(
      estimateTextTokens(frame.system) + estimateTextTokens(JSON.stringify(frame.tools)),
    );
  }

  /**
   * True when adding `next` would take `history` to `threshold` of the window
   * or past it: the session compacts before such a turn. False when auto
   * compaction is off or there is nothing to compact yet.
   */
  crosses(history: readonly HistoryMessage[], next: HistoryMessage, threshold: number | false): boolean {
    if (threshold === false || history.length === 0) return false;
    return this.tracker.measure([...history, next]) >= threshold * this.tracker.getState().maxTokens;
  }

  /** Recomputes usage for `history` and reports it. */
  refresh(history: readonly HistoryMessage[]): ContextWindowState {
    const state = this.tracker.update(history);
    this.#onChange(state);
    return state;
  }

  /** A reply reported its usage. */
  report(usage: TokenUsage, historyLength: number): ContextWindowState {
    const state = this.tracker.reportUsage(usage, historyLength);
    this.#onChange(state);
    return state;
  }

  /**
   * The usage to decide on before a request: the estimate, unless it falls
   * within {@link COUNT_MARGIN} below one of `lines` (fractions of the
   * window), where the provider's exact count replaces it. A failed count
   * leaves the estimate.
   */
  async decide(
    history: readonly HistoryMessage[],
    frame: ModelCallFrame,
    lines: readonly number[],
    signal?: AbortSignal,
  ): Promise<ContextWindowState> {
    const state = this.refresh(history);
    const near = lines.some(
      (line) =>
        state.usedTokens >= (line - COUNT_MARGIN) * state.maxTokens &&
        state.usedTokens < (line + COUNT_MARGIN) * state.maxTokens,
    );
    // Right after a reply its reported usage is exact already.
    if (!near || !frame.provider.countTokens || !this.tracker.hasUnsent(history)) return state;
    try {
      const exact = await frame.provider.countTokens({
        model: frame.model,
        system: frame.system,
        messages: toProviderMessages(history, frame.model),
        tools: [...frame.tools],
        ...(signal ? { signal } : {}),
      });
      // The history only grew since the last report, so the request is at least that big.
      const floor = this.tracker.reportedTokens ?? 0;
      this.tracker.reportUsage({ inputTokens: Math.max(exact, floor), outputTokens: 0 }, history.length);
      const counted = this.tracker.getState();
      this.#onChange(counted);
      return counted;
    } catch {
      return state;
    }
  }
}
