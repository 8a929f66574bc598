/**
 * A file upload as a scheduler slot: it waits behind the chat's earlier new
 * messages (so it appears after the text written before it), is counted
 * against the chat's and the adapter's budgets like any message, pauses on
 * a rate limit like every call, and reads its other failures from the same
 * retry table (an upload the platform finds too large is not tried again).
 */
import type { ChatAdapter, OutboundFile } from '../adapter-contract.js';
import type { OutboxContext } from './context.js';
import type { PaceKey } from './pace.js';
import { SingleCallJob, type SlotFailure } from './single-call.js';

/** Uploads one file; `done` resolves with the message holding it, or rejects with the last failure. */
export class FileJob extends SingleCallJob<string> {
  protected readonly callKind = 'upload' as const;
  readonly #file: OutboundFile;
  readonly #upload: NonNullable<ChatAdapter['sendFile']>;

  /** The adapter must implement `sendFile` (the outbox checks). */
  constructor(ctx: OutboxContext, chat: string, file: OutboundFile) {
    super(ctx, chat);
    this.#file = file;
    const upload = this.adapter.sendFile;
    if (!upload) throw new TypeError(`the ${this.adapter.platform} adapter has no sendFile`);
    this.#upload = upload.bind(this.adapter);
  }

  creates(): boolean {
    return this.pending;
  }

  protected async call(): Promise<{ value: string; created: PaceKey }> {
    const sent = await this.#upload(this.chat, this.#file);
    return { value: sent.messageId, created: this.ctx.messageKey(this.chat, sent.messageId) };
  }

  protected givenUp(_action: SlotFailure, err: unknown): undefined {
    const why = err instanceof Error ? err.message : String(err);
    this.ctx.logger.warn(
      { chat: this.chat, err: why, bytes: this.#file.bytes.length },
      'outbox upload failed',
    );
    return undefined;
  }
}
