/**
 * One chat's side of leasing across replicas: waiting while another replica
 * holds the chat, holding the lease while a turn or command runs, and
 * reloading what this replica cached when the chat was last held elsewhere.
 */
import type { Clock } from '../clock.js';
import type { ChatLease } from '../cluster/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { say } from './text.js';

/** How a chat runtime takes its chat's lease. */
export interface RuntimeLease {
  chats: ChatLease;
  ttlMs: number;
  /** Longest wait for a chat another replica holds before the message is given up. */
  waitMs: number;
  /** Pause between two tries while another replica holds the chat. */
  retryMs: number;
  /** The chat was last held by another replica: what this one cached of it is stale. */
  onMoved: (chat: string) => Promise<void>;
  /** Writes out what a command changed in the chat's session before the lease goes. */
  flush: (chat: string) => Promise<void>;
}

/** Takes, holds and releases one chat's lease for its runtime. */
export class ChatLeaseHolder {
  readonly #chat: string;
  readonly #cfg: RuntimeLease | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #say: (text: string) => void;
  /** Leases of this chat held right now (a turn or task, an exclusive command). */
  #holding = 0;
  #wake: (() => void) | undefined;

  constructor(
    chat: string,
    cfg: RuntimeLease | undefined,
    clock: Clock,
    logger: Logger,
    sayInChat: (text: string) => void,
  ) {
    this.#chat = chat;
    this.#cfg = cfg;
    this.#clock = clock;
    this.#logger = logger;
    this.#say = sayInChat;
  }

  /** True while this replica holds the chat's lease. */
  get holding(): boolean {
    return this.#holding > 0;
  }

  /** Ends a pause between two tries at once (the chat was stopped). */
  wake(): void {
    this.#wake?.();
  }

  /**
   * Runs `run` holding the chat's lease (at once without leasing). While
   * another replica holds the chat, the item stays here and the lease is
   * tried again every `retryMs`, until it frees (a finished turn, or the ttl
   * of a replica that died), `stopped()` turns true, or `waitMs` runs out.
   */
  async run(stopped: () => boolean, run: (signal: AbortSignal | undefined) => Promise<void>): Promise<void> {
    const cfg = this.#cfg;
    if (!cfg) return run(undefined);
    const chat = this.#chat;
    const logger = this.#logger;
    const deadline = this.#clock.now() + cfg.waitMs;
    let lease = await cfg.chats.acquire(chat, { ttlMs: cfg.ttlMs });
    if (!lease) logger.info({ chat }, 'another replica holds this chat; waiting for its lease');
    while (!lease) {
      if (stopped()) return;
      if (this.#clock.now() >= deadline) {
        logger.warn({ chat, waitMs: cfg.waitMs }, 'gave up waiting for the chat lease');
        this.#say(say.leaseWaitExpired);
        return;
      }
      await this.#pause(cfg.retryMs);
      if (stopped()) return;
      lease = await cfg.chats.acquire(chat, { ttlMs: cfg.ttlMs });
    }
    this.#holding++;
    try {
      if (lease.previousOwner !== undefined && lease.previousOwner !== lease.owner) {
        logger.info({ chat, previousOwner: lease.previousOwner }, 'chat moved here; reloading it');
        await cfg.onMoved(chat);
      }
      await run(lease.signal);
    } finally {
      this.#holding--;
      await lease.release().catch((err: unknown) => {
        logger.warn({ chat, err: describeError(err) }, 'could not release the chat lease');
      });
    }
  }

  /** Waits `ms` on the clock, or less when woken. */
  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.#wake = undefined;
        resolve();
      };
      const timer = this.#clock.setTimeout(done, ms);
      this.#wake = () => {
        this.#clock.clearTimeout(timer);
        done();
      };
    });
  }
}
