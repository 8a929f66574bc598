/**
 * The session's meter on its provider: every request gets the cache lifetime
 * chosen for this chat, and every finished response's usage goes into the
 * session's ledger. Wrapping the provider once catches turns and compactions
 * alike, without either having to remember to.
 */
import type { Clock } from '../clock.js';
import { type CacheSetting, chooseCacheLifetime } from '../provider/cache.js';
import type { Provider, ProviderEvent, ProviderRequest } from '../provider/types.js';
import type { HistoryMessage, UsageLedger } from '../vocabulary.js';
import { copyLedger, emptyLedger, ledgerEmpty, recordTranscription, recordUsage } from './usage-ledger.js';

/** How many of the newest prompts the lifetime choice needs (it looks at the latest gaps). */
const PROMPTS_CONSIDERED = 4;

/** A session's cache lifetime choice and usage ledger. */
export class SessionMeter {
  readonly #setting: CacheSetting;
  readonly #history: readonly HistoryMessage[];
  readonly #clock: Clock;
  #ledger: UsageLedger = emptyLedger();

  /** `history` is the session's own array, read (never changed) when a request is sent. */
  constructor(setting: CacheSetting, history: readonly HistoryMessage[], clock: Clock) {
    this.#setting = setting;
    this.#history = history;
    this.#clock = clock;
  }

  /** Continues the ledger of a resumed session. */
  restore(ledger: UsageLedger | undefined): void {
    this.#ledger = ledger ? copyLedger(ledger) : emptyLedger();
  }

  /** A copy of the ledger. */
  ledger(): UsageLedger {
    return copyLedger(this.#ledger);
  }

  /** The record's `usage` field: the ledger, or nothing while nothing was used. */
  recordField(): { usage?: UsageLedger } {
    return ledgerEmpty(this.#ledger) ? {} : { usage: this.ledger() };
  }

  /** Adds a voice note transcribed for this session (its length in seconds, 0 when unknown). */
  recordTranscription(model: string, seconds: number): void {
    recordTranscription(this.#ledger, model, seconds, this.#clock.now());
  }

  /** `inner`, with this session's cache lifetime on every request and its usage metered. */
  wrap(inner: Provider): Provider {
    return {
      name: inner.name,
      defaultModel: inner.defaultModel,
      stream: (request) => this.#stream(inner, request),
      // Counting and describing models cost nothing to meter: they pass straight through.
      ...(inner.countTokens ? { countTokens: inner.countTokens.bind(inner) } : {}),
      ...(inner.describeModel ? { describeModel: inner.describeModel.bind(inner) } : {}),
      ...(inner.retriesRefusals ? { retriesRefusals: inner.retriesRefusals.bind(inner) } : {}),
    };
  }

  async *#stream(inner: Provider, request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const cache = request.cache ?? chooseCacheLifetime(this.#setting, this.#promptTimes());
    for await (const event of inner.stream({ ...request, cache })) {
      if (event.type === 'message_end')
        recordUsage(this.#ledger, request.model, event.usage, this.#clock.now());
      yield event;
    }
  }

  /** When the chat's newest prompts were written (people's messages, not tool results or summaries), oldest first. */
  #promptTimes(): number[] {
    const times: number[] = [];
    for (let i = this.#history.length - 1; i >= 0 && times.length < PROMPTS_CONSIDERED; i--) {
      const m = this.#history[i] as HistoryMessage;
      if (m.role !== 'user' || m.kind !== undefined) continue;
      if (m.content.some((b) => b.type === 'tool_result')) continue;
      const at = Date.parse(m.createdAt);
      if (Number.isFinite(at)) times.push(at);
    }
    return times.reverse();
  }
}
