/**
 * Saving a session: one write at a time, in order. A turn appends only the
 * messages it added; compaction replaces them; renames and grants rewrite
 * only the small record. A failed write is reported through `save_error` and
 * the log — never swallowed — and the next save retries what is missing.
 */
import { SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SessionMeta, SessionRecord, SessionStore } from '../store/types.js';
import type { HistoryMessage } from './types.js';

/** Persists one session through its store (or does nothing without one). */
export class SessionPersistence {
  readonly #store: SessionStore | undefined;
  readonly #onError: (error: Error) => void;
  readonly #logger: Logger;
  #chain: Promise<void> = Promise.resolve();
  /** Messages of the current history already in the store. */
  #persisted = 0;
  /** Whether the store has a record for this session yet. */
  #created: boolean;
  /** Set after a failed replace: the stored messages no longer match and must be rewritten whole. */
  #needsReplace = false;
  /** The error of the newest write when it failed; cleared by the next write that works. */
  #lastError: Error | undefined;
  #frozen = false;

  constructor(options: {
    store: SessionStore | undefined;
    logger: Logger;
    onError: (error: Error) => void;
  }) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#onError = options.onError;
    this.#created = false;
  }

  /** The session was loaded from the store with `persisted` messages. */
  markExisting(persisted: number): void {
    this.#created = true;
    this.#persisted = persisted;
  }

  /** Whether there is a store at all. */
  get enabled(): boolean {
    return this.#store !== undefined;
  }

  /** Saves the messages added since the last save, and the record. */
  saveTurn(history: readonly HistoryMessage[], meta: SessionMeta): Promise<void> {
    const snapshot = [...history];
    return this.#enqueue('append', async (store) => {
      if (!this.#created) return this.#create(store, snapshot, meta);
      if (this.#needsReplace) return this.#replace(store, snapshot, meta);
      await store.append(meta.id, snapshot.slice(this.#persisted), meta);
      this.#persisted = snapshot.length;
    });
  }

  /** Writes a whole new record (new session, fork). */
  create(history: readonly HistoryMessage[], meta: SessionMeta): Promise<void> {
    const snapshot = [...history];
    return this.#enqueue('create', (store) => this.#create(store, snapshot, meta));
  }

  /** Replaces every stored message (after compaction). */
  replace(history: readonly HistoryMessage[], meta: SessionMeta): Promise<void> {
    const snapshot = [...history];
    this.#needsReplace = true;
    return this.#enqueue('replace', (store) =>
      this.#created ? this.#replace(store, snapshot, meta) : this.#create(store, snapshot, meta),
    );
  }

  /** Rewrites only the small record (rename, mode, grants). */
  updateMeta(meta: SessionMeta): Promise<void> {
    return this.#enqueue('updateMeta', async (store) => {
      // Until the record exists there is nothing to update; the next full save carries the meta.
      if (this.#created) await store.updateMeta(meta);
    });
  }

  /** Waits for the queued writes; the newest one's error when it failed, else undefined. */
  async lastResult(): Promise<Error | undefined> {
    await this.#chain;
    return this.#lastError;
  }

  /** Waits for every queued write, then for the store's own pending writes. */
  async flush(): Promise<void> {
    await this.#chain;
    await this.#store?.flush();
  }

  async #create(store: SessionStore, messages: HistoryMessage[], meta: SessionMeta): Promise<void> {
    const record: SessionRecord = { ...meta, messages };
    await store.create(record);
    this.#created = true;
    this.#needsReplace = false;
    this.#persisted = messages.length;
  }

  async #replace(store: SessionStore, messages: HistoryMessage[], meta: SessionMeta): Promise<void> {
    await store.replace(meta.id, messages, meta);
    this.#needsReplace = false;
    this.#persisted = messages.length;
  }

  /** Saves nothing from now on: what is stored stays as it is (a paused turn left for another process). */
  freeze(): void {
    this.#frozen = true;
  }

  #enqueue(operation: string, write: (store: SessionStore) => Promise<void>): Promise<void> {
    const store = this.#store;
    if (!store || this.#frozen) return Promise.resolve();
    const run = this.#chain.then(() =>
      write(store).then(
        () => {
          this.#lastError = undefined;
        },
        (err: unknown) => {
          const error =
            err instanceof Error
              ? err
              : new SwitchboardError('STORE_WRITE_FAILED', `Saving the session failed: ${String(err)}`, {
                  cause: err,
                });
          this.#logger.error({ err: error, operation }, 'session save failed');
          this.#lastError = error;
          this.#onError(error);
        },
      ),
    );
    this.#chain = run;
    return run;
  }
}
