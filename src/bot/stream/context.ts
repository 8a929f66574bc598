/**
 * What the outbox's parts share: the scheduler, time, logging, adapter
 * routing and per-chat capability adjustments.
 */
import type { Clock } from '../../clock.js';
import { SwitchboardError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type ChatAdapter, type ChatCapabilities, chatPlatform } from '../adapter-contract.js';
import type { PaceKey } from './pace.js';
import { Scheduler } from './scheduler.js';

/** Shared state of one outbox. */
export class OutboxContext {
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly #adapters: Map<string, ChatAdapter>;
  /** Per-chat factor applied to maxMessageLength after MESSAGE_TOO_LONG. */
  readonly #shrink = new Map<string, number>();

  constructor(adapters: readonly ChatAdapter[], clock: Clock, logger: Logger) {
    this.#adapters = new Map(adapters.map((a) => [a.platform, a]));
    this.clock = clock;
    this.logger = logger;
    this.scheduler = new Scheduler(this.#adapters, clock, logger);
  }

  /** The adapter owning `chat`; throws NOT_FOUND for an unknown platform. */
  adapterFor(chat: string): ChatAdapter {
    const adapter = this.#adapters.get(chatPlatform(chat));
    if (!adapter) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `No adapter for chat "${chat}": pass an adapter whose platform is "${chatPlatform(chat)}" to createOutbox.`,
      );
    }
    return adapter;
  }

  /** The chat's capabilities as declared, with the length shrunk after a MESSAGE_TOO_LONG. */
  capabilities(chat: string): ChatCapabilities {
    const adapter = this.adapterFor(chat);
    let caps = adapter.capabilities(chat);
    // A limit without the method to upload with is no way to send a file.
    if (caps.maxUploadBytes !== undefined && !adapter.sendFile) {
      const { maxUploadBytes: _none, ...rest } = caps;
      caps = rest;
    }
    const factor = this.#shrink.get(chat);
    if (factor === undefined) return caps;
    return { ...caps, maxMessageLength: Math.max(64, Math.floor(caps.maxMessageLength * factor)) };
  }

  /** The platform refused a length it declared: use 80% of it for this chat from now on. */
  shrink(chat: string): void {
    const factor = this.#shrink.get(chat) ?? 1;
    this.#shrink.set(chat, Math.max(0.2, factor * 0.8));
  }

  /** Pace key of one message. */
  messageKey(chat: string, messageId: string): PaceKey {
    return { platform: this.adapterFor(chat).platform, chat, kind: 'message', id: messageId };
  }

  /** Pace key of one native stream. */
  streamKey(chat: string, streamId: string): PaceKey {
    return { platform: this.adapterFor(chat).platform, chat, kind: 'stream', id: streamId };
  }
}
