/**
 * How a chat's runtime runs its turns and commands: at once in one process
 * ({@link OPEN_GATE}), or under the chat's lease across replicas. The lease
 * side waits while another replica holds the chat, holds the lease while a
 * turn or command runs, and reloads what this replica cached when the chat
 * was last held elsewhere.
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

/** What a chat's runtime runs its work through. */
export interface ChatGate {
  /**
   * Runs `run`, with the signal of whatever may take the chat away from this
   * process (none in one process). Returns without running when `stopped()`
   * turns true first.
   */
  run(stopped: () => boolean, run: (signal: AbortSignal | undefined) => Promise<void>): Promise<void>;
  /**
   * Runs a command that changes the session (/rename, /mode) so no other
   * process's cached copy overwrites it.
   */
  exclusive(work: () => Promise<void>): Promise<void>;
  /** Ends a wait for the chat at once (the chat was stopped). */
  wake(): void;
}

/** Makes the gate of one chat; `tellChat` tells the chat why a message was given up. */
export type ChatGateFactory = (chat: string, tellChat: (text: string) => void) => ChatGate;

/** One process: nothing to wait for, nothing to lose. */
export const OPEN_GATE: ChatGate = {
  run: (_stopped, run) => run(undefined),
  exclusive: (work) => work(),
  wake() {},
};

/** The gates of a replica: each chat's work runs under the chat's lease. */
export function leaseGates(cfg: RuntimeLease, clock: Clock, logger: Logger): ChatGateFactory {
  return (chat, tellChat) => new ChatLeaseHolder(chat, cfg, clock, logger, tellChat);
}

/** Takes, holds and releases one chat's lease for its runtime. */
class ChatLeaseHolder implements ChatGate {
  readonly #chat: string;
  readonly #cfg: RuntimeLease;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tell: (text: string) => void;
  /** Leases of this chat held right now (a turn or task, an exclusive command). */
  #holding = 0;
  #wake: (() => void) | undefined;

  constructor(
    chat: string,
    cfg: RuntimeLease,
    clock: Clock,
    logger: Logger,
    tellChat: (text: string) => void,
  ) {
    this.#chat = chat;
    this.#cfg = cfg;
    this.#clock = clock;
    this.#logger = logger;
    this.#tell = tellChat;
  }

  /**
   * At once when this replica holds the chat now; else under the chat's
   * lease, after reloading a session another replica changed, writing the
   * session out before the lease goes.
   */
  async exclusive(work: () => Promise<void>): Promise<void> {
    if (this.#holding > 0) return work();
    await this.run(
      () => false,
      async () => {
        await work();
        await this.#cfg.flush(this.#chat);
      },
    );
  }

  /** Ends a pause between two tries at once (the chat was stopped). */
  wake(): void {
    this.#wake?.();
  }

  /**
   * Runs `run` holding the chat's lease. While
   * another replica holds the chat, the item stays here and the lease is
   * tried again every `retryMs`, until it frees (a finished turn, or the ttl
   * of a replica that died), `stopped()` turns true, or `waitMs` runs out.
   */
  async run(stopped: () => boolean, run: (signal: AbortSignal | undefined) => Promise<void>): Promise<void> {
    const cfg = this.#cfg;
    const chat = this.#chat;
    const logger = this.#logger;
    const deadline = this.#clock.now() + cfg.waitMs;
    let lease = await cfg.chats.acquire(chat, { ttlMs: cfg.ttlMs });
    if (!lease) logger.info({ chat }, 'another replica holds this chat; waiting for its lease');
    while (!lease) {
      if (stopped()) return;
      if (this.#clock.now() >= deadline) {
        logger.warn({ chat, waitMs: cfg.waitMs }, 'gave up waiting for the chat lease');
        this.#tell(say.leaseWaitExpired);
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
