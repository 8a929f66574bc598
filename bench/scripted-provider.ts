/**
 * An in-process provider for the concurrency benchmark: streams a fixed reply
 * as timed deltas with no network, so the figures measure switchboard, not
 * HTTP parsing.
 */
import { type Clock, sleep, systemClock } from '../src/clock.js';
import type { Provider, ProviderEvent, ProviderRequest } from '../src/provider/types.js';

/** Options for {@link ScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** Characters per reply. */
  replyChars: number;
  /** Characters per delta. */
  deltaChars: number;
  /** Gap between deltas. */
  intervalMs: number;
  clock?: Clock;
}

/** Streams `replyChars` of text in `deltaChars` pieces every `intervalMs`. */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted';
  readonly defaultModel = 'claude-sonnet-4-6';
  deltas = 0;
  /** Replies begun. */
  turns = 0;
  /** What the next replies look like; may be changed between phases of a run. */
  options: ScriptedProviderOptions;
  readonly #clock: Clock;

  constructor(options: ScriptedProviderOptions) {
    this.options = options;
    this.#clock = options.clock ?? systemClock;
  }

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const { replyChars, deltaChars, intervalMs } = this.options;
    this.turns++;
    const piece = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(deltaChars / 27) + 1).slice(0, deltaChars);
    for (let sent = 0; sent < replyChars; sent += deltaChars) {
      await sleep(this.#clock, intervalMs, request.signal);
      this.deltas++;
      yield { type: 'text_delta', text: piece };
    }
    const inputTokens = Math.ceil(JSON.stringify(request.messages).length / 4);
    yield {
      type: 'message_end',
      stopReason: 'end_turn',
      usage: { inputTokens, outputTokens: Math.ceil(replyChars / 4) },
    };
  }
}
