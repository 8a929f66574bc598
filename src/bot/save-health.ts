/**
 * Whether each chat's history is being saved. A failing store (disk full,
 * permissions, database down) must not be silent: the first failed save of a
 * chat is said in that chat once, the reply itself still goes out, and the
 * next successful save says it recovered. The state is readable, so a
 * readiness check can report a store that is failing.
 */
import { describeError } from '../errors.js';

/** Read-only view of save health, for a readiness check. */
export interface SaveHealthView {
  /** True when no chat's last save failed. */
  readonly healthy: boolean;
  /** Chats whose last save failed, with the error said, oldest first. */
  failing(): Array<{ chat: string; error: string; since: number }>;
}

/** Save health of every chat the bot saw save (or fail to). */
export class SaveHealth implements SaveHealthView {
  readonly #failing = new Map<string, { error: string; since: number }>();

  get healthy(): boolean {
    return this.#failing.size === 0;
  }

  failing(): Array<{ chat: string; error: string; since: number }> {
    return [...this.#failing].map(([chat, f]) => ({ chat, ...f }));
  }

  /** A save of `chat` failed; returns the line to say there the first time, else undefined. */
  failed(chat: string, error: Error, now: number): string | undefined {
    if (this.#failing.has(chat)) return undefined;
    const said = describeError(error);
    this.#failing.set(chat, { error: said, since: now });
    return (
      `⚠️ This chat's history is not being saved (${said.length > 200 ? `${said.slice(0, 200)}…` : said}). ` +
      'Replies still arrive; a restart would lose what was said since. I will say when saving works again.'
    );
  }

  /** A save of `chat` worked; returns the line to say there when it had been failing. */
  saved(chat: string): string | undefined {
    if (!this.#failing.delete(chat)) return undefined;
    return '✅ Saving works again: this chat’s history is saved.';
  }

  /**
   * After a save outside a turn (a rename, a mode, a compaction, a new
   * session): waits for it, and returns the line to say in `chat` when its
   * outcome changed what the chat was told, else undefined.
   */
  async afterSave(
    chat: string,
    lastSave: () => Promise<Error | undefined>,
    now: number,
  ): Promise<string | undefined> {
    const error = await lastSave();
    return error ? this.failed(chat, error, now) : this.saved(chat);
  }
}
