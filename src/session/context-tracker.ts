/**
 * ContextWindowTracker: how much of the model's context window the session
 * uses. The provider's reported usage is the truth right after a reply; once
 * messages were added that the model has not seen, the tracker takes the
 * largest of a content-based estimate, the last reported figure and a floor
 * the caller supplies, so a big unsent prompt is never hidden.
 */
import { PDF_PAGE_TOKENS, pdfPages } from './file-kinds.js';
import { imageDimensions } from './images.js';
import type { ContentBlock, ContextWindowState, HistoryMessage, TokenUsage } from './types.js';

/** Tokens of an image whose size is unknown: the API bills ~1,600 for a typical photo. */
const IMAGE_TOKENS = 1_600;

/**
 * Estimated tokens of `text`, counted the way a BPE tokenizer splits it
 * rather than as characters / 4 (which counts JSON, base64 and CJK text
 * 40–78% low): a run of Latin letters is about one token per 6 letters
 * (a leading space joins the word), digits go in threes, each punctuation
 * mark is a token, CJK characters are a token each and other non-Latin
 * letters about one per two.
 */
export function estimateTextTokens(text: string): number {
  let tokens = 0;
  let run = 0; // letters in the current Latin run
  let digits = 0;
  let other = 0;
  const flush = () => {
    tokens += Math.ceil(run / 6) + Math.ceil(digits / 3) + Math.ceil(other / 2);
    run = 0;
    digits = 0;
    other = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    const digit = c >= 48 && c <= 57;
    if (letter) {
      if (digits || other) flush();
      run++;
    } else if (digit) {
      if (run || other) flush();
      digits++;
    } else if (c >= 0x2e80 && c <= 0xd7af) {
      flush();
      tokens++; // CJK, kana, hangul
    } else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff) {
        flush();
        tokens++; // one astral character (emoji): its low surrogate follows
      }
    } else if (c > 0x7f) {
      if (run || digits) flush();
      other++;
    } else {
      flush();
      // A space or newline before a word is part of that word's token.
      const next = text.charCodeAt(i + 1);
      const beforeWord =
        (c === 32 || c === 10) && ((next >= 65 && next <= 90) || (next >= 97 && next <= 122));
      if (!beforeWord) tokens++;
    }
  }
  flush();
  return tokens;
}

// Blocks are never changed in place, so each one is measured once.
const measured = new WeakMap<object, number>();

/** Estimated tokens of one block as the model sees it (content only: no ids, no metadata). */
export function blockTokens(block: ContentBlock): number {
  const cached = measured.get(block);
  if (cached !== undefined) return cached;
  const tokens = measureBlock(block);
  measured.set(block, tokens);
  return tokens;
}

function measureBlock(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return estimateTextTokens(block.text);
    case 'image':
      return imageTokens(block.data);
    case 'document':
      return pdfPages(Buffer.from(block.data, 'base64')) * PDF_PAGE_TOKENS;
    case 'tool_use':
      return estimateTextTokens(block.name) + estimateTextTokens(JSON.stringify(block.input));
    case 'tool_result':
      return (block.images ?? []).reduce(
        (sum, image) => sum + imageTokens(image.data),
        estimateTextTokens(block.content),
      );
    case 'thinking':
      // The signature carries the reasoning the model keeps; its length is the best clue to its size.
      return estimateTextTokens(block.thinking) + Math.ceil(block.signature.length / 4);
    case 'redacted_thinking':
      return Math.ceil(block.data.length / 4);
    case 'api':
      return estimateTextTokens(JSON.stringify(block.block));
  }
}

function imageTokens(base64: string): number {
  const size = imageDimensions(base64);
  // Vision docs: about width × height / 750 tokens, images past ~1.15 megapixels are scaled down first.
  return size ? Math.min(IMAGE_TOKENS, Math.ceil((size.width * size.height) / 750)) : IMAGE_TOKENS;
}

/** Estimated tokens of messages, from their content. */
export function estimateTokens(messages: readonly Pick<HistoryMessage, 'content'>[]): number {
  let tokens = 0;
  for (const m of messages) for (const b of m.content) tokens += blockTokens(b);
  return tokens;
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
  #overhead = 0;

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
   * Restores a saved session's state: its last reported usage (which covered
   * the whole saved history) and the usage it had, as a floor.
   */
  restore(
    history: readonly HistoryMessage[],
    saved: { lastReportedTokens?: number | undefined; usedTokens?: number | undefined },
  ): ContextWindowState {
    if (saved.lastReportedTokens !== undefined)
      this.reportUsage({ inputTokens: saved.lastReportedTokens, outputTokens: 0 }, history.length);
    return this.update(history, saved.usedTokens ?? 0);
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
    return Math.max(this.#overhead + estimateTokens(history), this.#reported ?? 0, floor);
  }

  /** True when `history` has messages the last report did not cover. */
  hasUnsent(history: readonly HistoryMessage[]): boolean {
    return this.#reported === undefined || history.length !== this.#reportedAt;
  }

  /** Forgets reported usage (after compaction) and re-estimates from `history`. */
  reset(history: readonly HistoryMessage[]): ContextWindowState {
    this.#reported = undefined;
    this.#reportedAt = 0;
    this.#used = this.#overhead + estimateTokens(history);
    return this.getState();
  }

  /** Tokens every request carries besides the history: the system prompt and the tool definitions. */
  setOverhead(tokens: number): void {
    this.#overhead = tokens;
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
