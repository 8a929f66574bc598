/**
 * The fake's getUpdates: confirmed updates (below `offset`) are dropped,
 * only the asked-for update types are delivered, and a request with nothing
 * to return is held open until an update arrives or its timeout passes. A
 * client that disconnects is forgotten, never answered late.
 */
import type { ServerResponse } from 'node:http';
import type { Update } from 'grammy/types';
import { ApiError, type FakeState } from './state.js';

/** What Telegram sends when a bot never set allowed_updates. */
const DEFAULT_ALLOWED = (type: string) =>
  !['chat_member', 'message_reaction', 'message_reaction_count', 'stopped_message_generation'].includes(type);

/** The update's type (`message`, `callback_query`, ...). */
export function updateType(update: Update): string {
  return Object.keys(update).find((k) => k !== 'update_id') ?? 'unknown';
}

type Reply = (res: ServerResponse, status: number, body: unknown) => void;

interface Poll {
  res: ServerResponse;
  offset: number;
  limit: number;
  timer: NodeJS.Timeout;
}

/** Long polling over the fake's update queue. */
export class LongPoll {
  readonly #polls = new Set<Poll>();

  constructor(
    readonly state: FakeState,
    readonly reply: Reply,
  ) {}

  #allowed(update: Update): boolean {
    const type = updateType(update);
    const asked = this.state.allowedUpdates;
    return asked && asked.length > 0 ? asked.includes(type) : DEFAULT_ALLOWED(type);
  }

  #pending(offset: number, limit: number): Update[] {
    this.state.queue = this.state.queue.filter((u) => u.update_id >= offset);
    return this.state.queue.filter((u) => this.#allowed(u)).slice(0, limit);
  }

  /** Answers a getUpdates request now or holds it open. */
  getUpdates(res: ServerResponse, params: Record<string, unknown>): void {
    if (this.state.webhook) {
      throw new ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    }
    if (Array.isArray(params.allowed_updates)) this.state.allowedUpdates = params.allowed_updates as string[];
    const offset = Number(params.offset ?? 0);
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeout = Math.max(0, Number(params.timeout ?? 0));
    const ready = this.#pending(offset, limit);
    if (ready.length > 0 || timeout === 0) {
      this.reply(res, 200, { ok: true, result: ready });
      return;
    }
    const poll: Poll = {
      res,
      offset,
      limit,
      timer: setTimeout(() => {
        this.#polls.delete(poll);
        this.reply(res, 200, { ok: true, result: [] });
      }, timeout * 1000),
    };
    this.#polls.add(poll);
    res.on('close', () => {
      clearTimeout(poll.timer);
      this.#polls.delete(poll);
    });
  }

  /** Answers held requests that now have updates. */
  flush(): void {
    for (const poll of [...this.#polls]) {
      const updates = this.#pending(poll.offset, poll.limit);
      if (updates.length === 0) continue;
      clearTimeout(poll.timer);
      this.#polls.delete(poll);
      this.reply(poll.res, 200, { ok: true, result: updates });
    }
  }

  close(): void {
    for (const poll of this.#polls) clearTimeout(poll.timer);
    this.#polls.clear();
  }
}
