/**
 * The bot core's side of running several replicas: whether another replica
 * is running a chat's turn right now, sending a control message (stop,
 * button press, edit) to it, and finding turns a dead replica cut short.
 * Without a lease or a bus every answer is "only this process".
 */
import type { Clock, TimerHandle } from '../clock.js';
import { claimOrphanedTurns } from '../cluster/orphans.js';
import type { ChatLease, ControlBus, ControlHandler, ControlMessage } from '../cluster/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ActiveTurn, BotStateStore } from '../store/types.js';
import type { RuntimeLease } from './chat-lease.js';
import type { ChatRuntime } from './chat-runtime.js';
import { say } from './text.js';

/** What {@link ReplicaLink} needs. */
export interface ReplicaLinkOptions {
  lease: ChatLease | undefined;
  bus: ControlBus | undefined;
  ttlMs: number;
  stateStore: BotStateStore;
  clock: Clock;
  logger: Logger;
}

/** This replica's view of the others. */
export class ReplicaLink {
  readonly #o: ReplicaLinkOptions;
  #unsubscribe: (() => void) | undefined;
  #sweep: TimerHandle | undefined;
  #closed = false;

  constructor(options: ReplicaLinkOptions) {
    this.#o = options;
  }

  /** True when control messages can reach other replicas. */
  get shared(): boolean {
    return this.#o.bus !== undefined;
  }

  /**
   * True when another replica holds the chat's lease, i.e. runs its turn now.
   * Asks only when this replica runs nothing in the chat (its own hold would
   * look the same). Taking and at once releasing the lease is the only
   * question the lease answers without a race.
   */
  async heldElsewhere(chat: string): Promise<boolean> {
    const { lease, logger } = this.#o;
    if (!lease || !this.#o.bus) return false;
    try {
      const probe = await lease.acquire(chat, { ttlMs: this.#o.ttlMs, keepAlive: false });
      if (!probe) return true;
      await probe.release();
      return false;
    } catch (err) {
      logger.warn({ chat, err: describeError(err) }, 'could not ask who runs this chat');
      return false;
    }
  }

  /**
   * How the chats' runtimes take leases; undefined without a lease (one
   * process, no leasing). `forget` drops a chat's cached session (closing it
   * waits for its saves); `announce` tells a chat its reply was cut off.
   */
  runtimeLease(options: {
    waitMs: number;
    forget: (chat: string) => Promise<void>;
    announce: (turn: ActiveTurn) => void;
  }): RuntimeLease | undefined {
    const { lease, ttlMs, stateStore } = this.#o;
    if (!lease) return undefined;
    return {
      chats: lease,
      ttlMs,
      waitMs: options.waitMs,
      retryMs: Math.max(10, Math.min(500, Math.floor(ttlMs / 4))),
      flush: options.forget,
      onMoved: async (chat) => {
        await options.forget(chat);
        // Holding the lease, a turn still recorded for the chat is one a dead replica cut short.
        const cut = (await stateStore.activeTurns()).find((t) => t.chat === chat);
        if (!cut) return;
        await stateStore.endTurn(chat);
        options.announce(cut);
      },
    };
  }

  /**
   * Stops the chat here and sends the stop to the other replicas (a message
   * may wait here while another replica runs the chat's turn). Returns what
   * to answer; undefined when the replica running the turn answers.
   */
  async stop(chat: ChatRuntime, who: { id: string; name: string }): Promise<string | undefined> {
    const { dropped, running } = chat.stop();
    const result = running || dropped ? say.stopped(dropped, running) : say.nothingToStop;
    if (!this.shared) return result;
    const elsewhere = !running && !dropped && (await this.heldElsewhere(chat.chat));
    await this.forward(chat.chat, { type: 'stop', user: who });
    return elsewhere ? undefined : result;
  }

  /** Publishes a control message for the chat's running turn; false when it could not be sent. */
  async forward(chat: string, message: ControlMessage): Promise<boolean> {
    const bus = this.#o.bus;
    if (!bus) return false;
    try {
      await bus.publish(chat, message);
      this.#o.logger.debug({ chat, type: message.type }, 'control message sent to the other replicas');
      return true;
    } catch (err) {
      this.#o.logger.error({ chat, err: describeError(err) }, 'control message could not be published');
      return false;
    }
  }

  /** Hands control messages from other replicas to `handler` (this replica's own are skipped). */
  async listen(handler: ControlHandler): Promise<void> {
    const bus = this.#o.bus;
    if (!bus) return;
    this.#unsubscribe = bus.subscribe((envelope) =>
      envelope.origin === bus.origin ? undefined : handler(envelope),
    );
    await bus.ready();
  }

  /**
   * Turns begun and never ended that no live replica runs: each is ended in
   * the state store before it is returned, so it is announced once. Without
   * a lease (one process) that is every recorded turn.
   */
  async claimOrphans(): Promise<ActiveTurn[]> {
    const { lease, stateStore, ttlMs } = this.#o;
    if (!lease) {
      const turns = await stateStore.activeTurns();
      for (const turn of turns) await stateStore.endTurn(turn.chat);
      return turns;
    }
    const out: ActiveTurn[] = [];
    for (const { turn, lease: held } of await claimOrphanedTurns(stateStore, lease, { ttlMs })) {
      try {
        // A turn that began after the listing is someone's live turn, not an orphan.
        const still = (await stateStore.activeTurns()).find((t) => t.chat === turn.chat);
        if (still?.startedAt !== turn.startedAt) continue;
        await stateStore.endTurn(turn.chat);
        out.push(turn);
      } finally {
        await held.release();
      }
    }
    return out;
  }

  /**
   * Looks for turns of dead replicas about once per lease ttl: their leases
   * free themselves only after it, so one look at start-up misses them.
   */
  sweepEvery(onOrphan: (turn: ActiveTurn) => void): void {
    if (!this.#o.lease || !this.#o.bus) return;
    const { clock, logger, ttlMs } = this.#o;
    const tick = () => {
      this.#sweep = undefined;
      if (this.#closed) return;
      this.claimOrphans()
        .then((turns) => turns.forEach(onOrphan))
        .catch((err: unknown) => logger.warn({ err: describeError(err) }, 'orphaned turn sweep failed'))
        .finally(() => {
          if (!this.#closed) this.#sweep = clock.setTimeout(tick, ttlMs);
        });
    };
    this.#sweep = clock.setTimeout(tick, ttlMs);
  }

  /** Stops listening and sweeping; the lease and bus themselves belong to the caller. */
  close(): void {
    this.#closed = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#sweep !== undefined) this.#o.clock.clearTimeout(this.#sweep);
    this.#sweep = undefined;
  }
}
