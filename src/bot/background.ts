/**
 * Work the bot starts and does not wait for (an answer, a notice, a
 * command): each failure is logged, and shutdown can wait for all of it.
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Promises in flight, logged when they fail. */
export class Background {
  readonly #pending = new Set<Promise<unknown>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** True while something tracked has not settled. */
  get busy(): boolean {
    return this.#pending.size > 0;
  }

  /** Keeps `work` until it settles; `what` names it in the log when it fails. */
  track(work: Promise<unknown>, what: string): void {
    const tracked = work.catch((err: unknown) =>
      this.#logger.error({ err: describeError(err) }, `${what} failed`),
    );
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  /** Resolves when everything tracked so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}
