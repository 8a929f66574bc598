/**
 * The part of a chat lease that does not depend on where leases are kept:
 * tokens, keep-alive renewal on the injected clock, and the signal that
 * tells a running turn its lease was lost.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Clock, systemClock, type TimerHandle } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import type { ChatLease, Lease, LeaseOptions } from './types.js';

/** Where leases live: three atomic operations keyed by chat and token. */
export interface LeaseBackend {
  /**
   * Takes `chat` for `token` when free or expired at `now`; undefined when
   * someone holds it, else who held it before.
   */
  acquire(
    chat: string,
    owner: string,
    token: string,
    now: number,
    expiresAt: number,
  ): Promise<{ previousOwner: string | undefined } | undefined>;
  /** Moves the expiry of `chat` held by `token`; false when `token` no longer holds it. */
  renew(chat: string, token: string, expiresAt: number): Promise<boolean>;
  /**
   * Frees `chat` if `token` still holds it, remembering its owner as the
   * previous one; with `handBack`, the owner before it instead (the holder
   * only looked).
   */
  release(chat: string, token: string, handBack: boolean): Promise<void>;
  /** Frees resources of the backend itself. */
  close(): Promise<void>;
}

/** Options shared by every {@link ChatLease} implementation. */
export interface ChatLeaseOptions {
  /** This replica's id (default: host, process id and a random suffix). */
  owner?: string;
  /** Time for expiry and keep-alive (default the system clock). */
  clock?: Clock;
  logger?: Logger;
}

/** A replica id that differs between processes and hosts. */
export function replicaId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Lease ttlMs must be a positive number of milliseconds, not ${ttlMs}.`,
      {
        detail: { field: 'ttlMs' },
      },
    );
  }
}

/** A {@link ChatLease} over `backend`. */
export function createChatLease(backend: LeaseBackend, options: ChatLeaseOptions = {}): ChatLease {
  const owner = options.owner ?? replicaId();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const held = new Set<HeldLease>();

  class HeldLease implements Lease {
    readonly chat: string;
    readonly owner = owner;
    readonly token: string;
    readonly previousOwner: string | undefined;
    expiresAt: number;
    readonly #ttlMs: number;
    readonly #lookOnly: boolean;
    readonly #controller = new AbortController();
    #timer: TimerHandle | undefined;
    #released = false;

    constructor(
      chat: string,
      token: string,
      previousOwner: string | undefined,
      expiresAt: number,
      ttlMs: number,
      keepAlive: boolean,
      lookOnly: boolean,
    ) {
      this.chat = chat;
      this.token = token;
      this.previousOwner = previousOwner;
      this.expiresAt = expiresAt;
      this.#ttlMs = ttlMs;
      this.#lookOnly = lookOnly;
      if (keepAlive) this.#schedule();
    }

    get signal(): AbortSignal {
      return this.#controller.signal;
    }

    async renew(): Promise<boolean> {
      if (this.#released || this.signal.aborted) return false;
      const expiresAt = clock.now() + this.#ttlMs;
      if (await backend.renew(this.chat, this.token, expiresAt)) {
        this.expiresAt = expiresAt;
        return true;
      }
      this.#lose('another holder took it after it expired');
      return false;
    }

    async release(): Promise<void> {
      if (this.#released) return;
      this.#released = true;
      this.#stop();
      held.delete(this);
      await backend.release(this.chat, this.token, this.#lookOnly);
    }

    #schedule(): void {
      this.#timer = clock.setTimeout(() => void this.#keepAlive(), Math.max(1, Math.floor(this.#ttlMs / 3)));
    }

    async #keepAlive(): Promise<void> {
      this.#timer = undefined;
      if (this.#released || this.signal.aborted) return;
      try {
        if (!(await this.renew())) return;
      } catch (err) {
        // A failed renewal is retried until the lease would have run out.
        logger.warn(
          { chat: this.chat, err: err instanceof Error ? err.message : String(err) },
          'lease renewal failed',
        );
        if (clock.now() >= this.expiresAt) {
          this.#lose('it could not be renewed before it expired');
          return;
        }
      }
      if (!this.#released && !this.signal.aborted) this.#schedule();
    }

    #lose(why: string): void {
      this.#stop();
      held.delete(this);
      if (this.signal.aborted) return;
      logger.warn({ chat: this.chat, owner }, `chat lease lost: ${why}`);
      this.#controller.abort(
        new SwitchboardError('SESSION_BUSY', `This replica lost its lease on chat ${this.chat}: ${why}.`, {
          detail: { chat: this.chat },
        }),
      );
    }

    #stop(): void {
      if (this.#timer !== undefined) clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  return {
    owner,
    async acquire(chat, leaseOptions: LeaseOptions) {
      checkTtl(leaseOptions.ttlMs);
      const token = randomBytes(9).toString('base64url');
      const now = clock.now();
      const expiresAt = now + leaseOptions.ttlMs;
      const taken = await backend.acquire(chat, owner, token, now, expiresAt);
      if (!taken) return undefined;
      const keepAlive = leaseOptions.keepAlive !== false;
      const lookOnly = leaseOptions.lookOnly === true;
      const { previousOwner } = taken;
      const lease = new HeldLease(
        chat,
        token,
        previousOwner,
        expiresAt,
        leaseOptions.ttlMs,
        keepAlive,
        lookOnly,
      );
      held.add(lease);
      return lease;
    },
    async close() {
      await Promise.allSettled([...held].map((lease) => lease.release()));
      await backend.close();
    },
  };
}

/** Leases in this process only: the default for a single replica. */
export function createMemoryChatLease(options: ChatLeaseOptions = {}): ChatLease {
  const leases = new Map<
    string,
    { owner: string; token: string; expiresAt: number; previousOwner: string | undefined }
  >();
  const clock = options.clock ?? systemClock;
  return createChatLease(
    {
      async acquire(chat, owner, token, now, expiresAt) {
        const current = leases.get(chat);
        if (current && current.expiresAt > now) return undefined;
        leases.set(chat, { owner, token, expiresAt, previousOwner: current?.owner });
        return { previousOwner: current?.owner };
      },
      async renew(chat, token, expiresAt) {
        const current = leases.get(chat);
        if (current?.token !== token) return false;
        current.expiresAt = expiresAt;
        return true;
      },
      async release(chat, token, handBack) {
        const current = leases.get(chat);
        if (current?.token !== token) return;
        current.expiresAt = Number.NEGATIVE_INFINITY;
        if (handBack) current.owner = current.previousOwner ?? current.owner;
      },
      async close() {},
    },
    { ...options, clock },
  );
}
