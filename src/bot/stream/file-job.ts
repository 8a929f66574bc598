/**
 * A file upload as a scheduler slot: it waits behind the chat's earlier new
 * messages (so it appears after the text written before it), is counted
 * against the chat's and the adapter's budgets like any message, pauses on
 * a rate limit like every call, and reads its other failures from the same
 * retry table (an upload the platform finds too large is not tried again).
 */
import { SwitchboardError } from '../../errors.js';
import type { ChatAdapter, OutboundFile } from '../adapter-contract.js';
import type { OutboxContext } from './context.js';
import type { FailureAction } from './retry.js';
import type { Call, Slot } from './scheduler.js';

/** Uploads one file; `done` resolves with the message holding it, or rejects with the last failure. */
export class FileJob implements Slot {
  readonly kind = 'text' as const;
  readonly chat: string;
  readonly done: Promise<string>;
  #resolve!: (id: string) => void;
  #reject!: (err: unknown) => void;
  #finished = false;
  #attempts = 0;
  #notBefore = 0;
  readonly #ctx: OutboxContext;
  readonly #adapter: ChatAdapter;
  readonly #file: OutboundFile;

  constructor(ctx: OutboxContext, chat: string, file: OutboundFile) {
    this.#ctx = ctx;
    this.chat = chat;
    this.#file = file;
    this.#adapter = ctx.adapterFor(chat);
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  readyAt(): number {
    return this.#notBefore;
  }

  creates(): boolean {
    return !this.#finished;
  }

  next(): Call | undefined {
    if (this.#finished) return undefined;
    const upload = this.#adapter.sendFile?.bind(this.#adapter);
    if (!upload) {
      this.#finished = true;
      this.#reject(
        new SwitchboardError('PLATFORM_ERROR', `The ${this.#adapter.platform} adapter cannot upload files.`),
      );
      return undefined;
    }
    return {
      kind: 'upload',
      attempt: this.#attempts + 1,
      // A caption is plain already: a formatting refusal cannot be helped by resending it.
      plain: true,
      run: async () => {
        const sent = await upload(this.chat, this.#file);
        this.#finished = true;
        this.#resolve(sent.messageId);
        return this.#ctx.messageKey(this.chat, sent.messageId);
      },
    };
  }

  failed(action: Exclude<FailureAction, { kind: 'pause' }>, err: unknown): void {
    this.#attempts++;
    if (action.kind === 'retry') {
      this.#notBefore = this.#ctx.clock.now() + action.delayMs;
      return;
    }
    this.#finished = true;
    this.#ctx.logger.warn(
      {
        chat: this.chat,
        err: err instanceof Error ? err.message : String(err),
        bytes: this.#file.bytes.length,
      },
      'outbox upload failed',
    );
    this.#reject(err instanceof Error ? err : new SwitchboardError('PLATFORM_ERROR', String(err)));
  }
}
