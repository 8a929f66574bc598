/**
 * What the bot core needs to run as several replicas: a lease per chat (one
 * turn per chat across all replicas) and a bus for control messages (a stop,
 * a button press or an edit that reaches replica B for a turn running on
 * replica A). Each has an in-process implementation (one replica, the
 * default) and a PostgreSQL one.
 */

/** Options of {@link ChatLease.acquire}. */
export interface LeaseOptions {
  /** How long the lease lasts without renewal; a dead holder's lease frees itself after this. */
  ttlMs: number;
  /**
   * Renew the lease every third of `ttlMs` until it is released (default
   * true). A lease that cannot be renewed before it expires is lost.
   */
  keepAlive?: boolean;
  /**
   * The holder only looks (who runs the chat?) or ends a cut turn's record,
   * and changes nothing a replica caches of the chat. On release the chat
   * goes back under the name of the replica that held it before, so the
   * next holder still learns who last worked in it (see
   * {@link Lease.previousOwner}); else a replica that only looked would take
   * its own stale copy of the session for the newest one.
   */
  lookOnly?: boolean;
}

/** A chat held by this replica until it is released, expires or is lost. */
export interface Lease {
  readonly chat: string;
  /** The replica holding it ({@link ChatLease.owner}). */
  readonly owner: string;
  /**
   * The replica that held this chat before, if any. When it is not this
   * replica, another one may have run turns meanwhile: state this replica
   * keeps in memory for the chat (a cached session) is stale and must be
   * reloaded from the store.
   */
  readonly previousOwner: string | undefined;
  /** Identifies this one acquisition: a later holder of the same chat has another token. */
  readonly token: string;
  /** When the lease runs out unless renewed (clock milliseconds). */
  readonly expiresAt: number;
  /**
   * Aborted when the lease is lost: another holder took the chat after it
   * expired, or keep-alive could not renew it in time. A turn running under
   * the lease should stop then. Not aborted by {@link Lease.release}.
   */
  readonly signal: AbortSignal;
  /** Extends the lease by its ttl from now; false (and the signal aborted) when it was lost. */
  renew(): Promise<boolean>;
  /** Gives the chat up at once (no wait for expiry); safe to call twice. */
  release(): Promise<void>;
}

/**
 * One turn per chat across replicas.
 *
 * @example
 * const lease = await leases.acquire(chat, { ttlMs: 30_000 });
 * if (!lease) return queueForLater(); // another replica runs this chat's turn
 * try { await runTurn({ signal: lease.signal }); } finally { await lease.release(); }
 */
export interface ChatLease {
  /** This replica's id, recorded as the owner of its leases. */
  readonly owner: string;
  /** Takes the chat when no one holds it (or its lease expired); undefined when someone else does. */
  acquire(chat: string, options: LeaseOptions): Promise<Lease | undefined>;
  /** Releases every lease this instance holds and stops keep-alive timers. */
  close(): Promise<void>;
}

/** Who sent a control message: the platform user, as in the bot core's events. */
export interface ControlUser {
  id: string;
  name?: string;
}

/**
 * A control message for a chat's running turn, wherever it runs. A button
 * press carries a `ref` when its sender waits for the `answer` of the replica
 * that acts on it (the person pressing is told what happened, or that no
 * replica answered).
 */
export type ControlMessage =
  | { type: 'stop'; user: ControlUser }
  | { type: 'button'; payload: string; user: ControlUser; messageId?: string; ref?: string }
  | { type: 'edit'; messageId: string; text: string; user: ControlUser }
  | { type: 'answer'; ref: string; text: string };

/** A control message as delivered, with where it came from. */
export interface ControlEnvelope {
  /** Unique per message; a subscriber never sees one id twice. */
  id: string;
  chat: string;
  message: ControlMessage;
  /** The publishing bus's {@link ControlBus.origin}: a replica may skip its own messages. */
  origin: string;
  /** When it was published (publisher's clock milliseconds). */
  sentAt: number;
}

/** Called for every control message; errors it throws are logged, not propagated. */
export type ControlHandler = (envelope: ControlEnvelope) => void | Promise<void>;

/**
 * Control messages between replicas. Every subscriber of every replica,
 * the publisher's own included, receives each message once.
 *
 * @example
 * bus.subscribe(({ chat, message }) => { if (message.type === 'stop') runningTurns.get(chat)?.abort(); });
 * await bus.publish('telegram:42', { type: 'stop', user: { id: 'telegram:7' } });
 */
export interface ControlBus {
  /** This replica's id, carried in every envelope it publishes. */
  readonly origin: string;
  publish(chat: string, message: ControlMessage): Promise<void>;
  /** Adds a handler; returns the function that removes it. */
  subscribe(handler: ControlHandler): () => void;
  /** Resolves when subscriptions are live, so messages published from now on arrive. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
