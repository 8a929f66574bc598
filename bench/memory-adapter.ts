/**
 * A chat platform in memory for the concurrency benchmark: every call
 * succeeds at once, paces are short, and only counts are kept, so the
 * figures measure the core rather than the platform.
 */
import type {
  ChatAdapter,
  ChatCapabilities,
  EventSink,
  OutboundMessage,
  SentMessage,
} from '../src/bot/adapter-contract.js';
import { markdown } from '../src/bot/format/dialect.js';

/** Options for {@link MemoryAdapter}. */
export interface MemoryAdapterOptions {
  /** Minimum gap between edits of one message (default 500 ms, twice as fast as the fastest platform). */
  minEditIntervalMs?: number;
}

/** An instant in-memory {@link ChatAdapter} with platform prefix `mem`. */
export class MemoryAdapter implements ChatAdapter {
  readonly platform = 'mem';
  sink: EventSink | undefined;
  sends = 0;
  edits = 0;
  /** Length of the newest text of each chat's newest message, to check replies arrived whole. */
  readonly lastLength = new Map<string, number>();
  readonly #caps: ChatCapabilities;
  #nextId = 1;

  constructor(options: MemoryAdapterOptions = {}) {
    this.#caps = {
      maxMessageLength: 4000,
      minEditIntervalMs: options.minEditIntervalMs ?? 500,
      dialect: markdown,
      nativeStream: false,
      buttonPayloadLimit: 64,
      typingIntervalMs: 0,
    };
  }

  capabilities(): ChatCapabilities {
    return this.#caps;
  }

  async start(sink: EventSink): Promise<void> {
    this.sink = sink;
  }

  async stop(): Promise<void> {
    this.sink = undefined;
  }

  async send(chat: string, message: OutboundMessage): Promise<SentMessage> {
    this.sends++;
    this.lastLength.set(chat, message.text.length);
    return { messageId: String(this.#nextId++) };
  }

  async edit(chat: string, _messageId: string, message: OutboundMessage): Promise<void> {
    this.edits++;
    this.lastLength.set(chat, message.text.length);
  }

  async delete(): Promise<void> {}

  async typing(): Promise<void> {}
}
