/**
 * The outbox: the only way the bot core talks to adapters. Every call (sends,
 * edits, deletes, uploads, native stream updates, typing) goes through one scheduler
 * that keeps each message at one call in flight and at the declared pace,
 * respects per-chat and adapter-wide budgets and `retry_after`, and always
 * sends the newest text.
 */
import { type Clock, systemClock } from '../../clock.js';
import { SwitchboardError } from '../../errors.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { ChatAdapter, OutboundFile } from '../adapter-contract.js';
import { OutboxContext } from './context.js';
import { EditJob, ShownTexts } from './edit-job.js';
import { FileJob } from './file-job.js';
import { DeleteJob, SendJob } from './oneoff.js';
import { Reply } from './reply.js';
import type { Outbox, ReplyStream, SendOptions, StreamOptions } from './types.js';
import { TypingSlot } from './typing.js';

export type { DeliveredReply, Outbox, ReplyStream, SendOptions, StreamOptions } from './types.js';

/** Options for {@link createOutbox}. */
export interface OutboxOptions {
  /** One adapter per platform; chats are routed by their key's prefix. */
  adapters: readonly ChatAdapter[];
  /** Time source for pacing; tests and benchmarks pass a VirtualClock. */
  clock?: Clock;
  logger?: Logger;
}

/**
 * Creates the outbox for a set of adapters.
 *
 * @example
 * const outbox = createOutbox({ adapters: [telegram, slack], logger });
 * const reply = outbox.stream('telegram:42', { liveButtons: [[stopButton]] });
 * session.on('text_delta', (d) => reply.append(d));
 * const { messageIds } = await reply.finish();
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const ctx = new OutboxContext(
    options.adapters,
    options.clock ?? systemClock,
    options.logger ?? silentLogger,
  );
  const edits = new Map<string, EditJob>();
  const shown = new ShownTexts();
  const typing = new Map<string, TypingSlot>();

  const remove = (chat: string, messageId: string): Promise<void> => {
    const job = new DeleteJob(ctx, chat, messageId);
    ctx.scheduler.wake(job, ctx.adapterFor(chat));
    return job.done;
  };

  return {
    capabilities: (chat: string) => ctx.capabilities(chat),

    async send(chat: string, markdown: string, sendOptions: SendOptions = {}): Promise<string[]> {
      const job = new SendJob(ctx, chat, markdown, sendOptions);
      ctx.scheduler.wake(job, ctx.adapterFor(chat));
      return job.done;
    },

    async edit(
      chat: string,
      messageId: string,
      markdown: string,
      sendOptions: SendOptions = {},
    ): Promise<void> {
      const key = `${chat}\u0000${messageId}`;
      let job = edits.get(key);
      if (!job) {
        const created = new EditJob(ctx, chat, messageId, shown, () => {
          if (edits.get(key) === created) edits.delete(key);
        });
        job = created;
        edits.set(key, job);
      }
      const done = job.set(markdown, sendOptions);
      ctx.scheduler.wake(job, ctx.adapterFor(chat));
      return done;
    },

    delete(chat: string, messageId: string): Promise<void> {
      return remove(chat, messageId);
    },

    async sendFile(chat: string, file: OutboundFile): Promise<string> {
      const adapter = ctx.adapterFor(chat);
      if (!adapter.sendFile) {
        throw new SwitchboardError(
          'PLATFORM_ERROR',
          `The ${adapter.platform} adapter cannot upload files: implement ChatAdapter.sendFile to send them.`,
        );
      }
      const job = new FileJob(ctx, chat, file);
      ctx.scheduler.wake(job, ctx.adapterFor(chat));
      return job.done;
    },

    startTyping(chat: string): void {
      if (ctx.capabilities(chat).typingIntervalMs <= 0) return;
      let slot = typing.get(chat);
      if (!slot) {
        slot = new TypingSlot(ctx, chat);
        typing.set(chat, slot);
      }
      slot.active = true;
      ctx.scheduler.wake(slot, ctx.adapterFor(chat));
    },

    stopTyping(chat: string): void {
      const slot = typing.get(chat);
      if (!slot) return;
      slot.active = false;
      typing.delete(chat);
      ctx.scheduler.remove(slot);
    },

    stream(chat: string, streamOptions: StreamOptions = {}): ReplyStream {
      return new Reply(ctx, chat, streamOptions, (id) => {
        remove(chat, id).catch((err: unknown) =>
          ctx.logger.warn({ err, chat }, 'could not delete a surplus message'),
        );
      });
    },

    idle(): Promise<void> {
      return ctx.scheduler.idle();
    },
  };
}
