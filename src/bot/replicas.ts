/**
 * One replica among several: the router wrapped so that an event for a turn
 * another replica runs (an edit of its message, a /stop, a press of its
 * buttons) is forwarded over the control bus, and control messages from the
 * other replicas become the same events through the same router. A press
 * sent away waits a few seconds for the answer of the replica that acted on
 * it; silence is said as such, so the person may press again.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../clock.js';
import type { ChatLease, ControlBus, ControlEnvelope, ControlMessage } from '../cluster/types.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ActiveTurn, BotStateStore } from '../store/types.js';
import { type AccessPolicy, userKey } from './access.js';
import { type ButtonEvent, type ChatEvent, chatPlatform } from './adapter-contract.js';
import type { Sender } from './admission.js';
import type { ChatGateFactory } from './chat-lease.js';
import { leaseGates } from './chat-lease.js';
import { normalizeCommandName } from './commands.js';
import { OrphanSweep } from './orphan-sweep.js';
import type { ChatRouter } from './router.js';
import { say } from './text.js';

/** What a replica shares with the others, and its bounds. */
export interface ReplicaOptions {
  lease: ChatLease;
  bus: ControlBus;
  ttlMs: number;
  /** Longest wait for a chat another replica holds before a message is given up. */
  leaseWaitMs: number;
  /** How long a press sent to another replica waits for its answer. */
  answerTimeoutMs: number;
  stateStore: BotStateStore;
  access: AccessPolicy;
  clock: Clock;
  logger: Logger;
}

/**
 * The gates of a replica's chats: each turn and command runs under the
 * chat's lease. A chat last held by another replica has its cached session
 * dropped (`forget`), and a turn still recorded for it was cut short there:
 * it is ended and announced once.
 */
export function replicaGates(
  options: ReplicaOptions,
  forget: (chat: string) => Promise<void>,
  announce: (turn: ActiveTurn) => void,
): ChatGateFactory {
  const { lease, ttlMs, leaseWaitMs, stateStore, clock, logger } = options;
  return leaseGates(
    {
      chats: lease,
      ttlMs,
      waitMs: leaseWaitMs,
      retryMs: Math.max(10, Math.min(500, Math.floor(ttlMs / 4))),
      flush: forget,
      onMoved: async (chat) => {
        await forget(chat);
        // Holding the lease, a turn still recorded for the chat is one another replica cut short.
        const cut = (await stateStore.activeTurns()).find((t) => t.chat === chat);
        if (!cut) return;
        await stateStore.endTurn(chat);
        announce(cut);
      },
    },
    clock,
    logger,
  );
}

/** The router of one replica: forwards what runs elsewhere, routes the rest here. */
export class ReplicaRouter {
  readonly #router: ChatRouter;
  readonly #o: ReplicaOptions;
  readonly #sweep: OrphanSweep;
  /** Presses sent to another replica, waiting for its answer, by ref. */
  readonly #waiting = new Map<string, (text: string | undefined) => void>();
  #unsubscribe: (() => void) | undefined;

  constructor(router: ChatRouter, options: ReplicaOptions) {
    this.#router = router;
    this.#o = options;
    this.#sweep = new OrphanSweep(options);
  }

  /** Acts on the event here, or sends it to the replica running the chat's turn. */
  async route(event: ChatEvent, sender: Sender): Promise<void> {
    const router = this.#router;
    switch (event.type) {
      case 'edit':
        if (router.holds(event)) return router.route(event, sender);
        // It may be the message whose turn another replica is running.
        await this.#forward(event.chat, {
          type: 'edit',
          messageId: event.messageId,
          text: event.text,
          user: event.user,
        });
        return;
      case 'stop':
        return this.#stop(event, sender);
      case 'command':
        if (normalizeCommandName(event.name) === 'stop') return this.#stop(event, sender);
        return router.route(event, sender);
      case 'button':
        if (router.holds(event) || router.busy(event.chat) || !(await this.#heldElsewhere(event.chat)))
          return router.route(event, sender);
        return this.#pressElsewhere(event);
      default:
        return router.route(event, sender);
    }
  }

  /**
   * Claims the turns dead replicas cut short (each ended, to be announced
   * once), listens to the other replicas, and keeps looking for cut turns
   * about once per ttl.
   */
  async start(announce: (turn: ActiveTurn) => void): Promise<ActiveTurn[]> {
    const leftover = await this.#sweep.claim();
    const bus = this.#o.bus;
    this.#unsubscribe = bus.subscribe((envelope) =>
      envelope.origin === bus.origin ? undefined : this.#receive(envelope),
    );
    await bus.ready();
    this.#sweep.every(announce);
    return leftover;
  }

  /** Stops listening and sweeping; presses still waiting get no answer. The lease and bus are the caller's. */
  close(): void {
    this.#sweep.close();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const resolve of [...this.#waiting.values()]) resolve(undefined);
  }

  /**
   * Stops the chat here and sends the stop to the other replicas (a message
   * may wait here while another replica runs the chat's turn). When only
   * another replica runs the chat, that replica answers in the chat.
   */
  async #stop(event: ChatEvent, sender: Sender): Promise<void> {
    const elsewhere = !this.#router.busy(event.chat) && (await this.#heldElsewhere(event.chat));
    if (!elsewhere) await this.#router.route(event, sender);
    await this.#forward(event.chat, { type: 'stop', user: event.user });
  }

  async #pressElsewhere(event: ButtonEvent): Promise<void> {
    const ref = randomUUID();
    const answer = this.#awaitAnswer(ref);
    const sent = await this.#forward(event.chat, {
      type: 'button',
      payload: event.payload,
      user: event.user,
      ref,
      ...(event.messageId === undefined ? {} : { messageId: event.messageId }),
    });
    if (!sent) this.#waiting.get(ref)?.(undefined);
    const text = await answer;
    if (text === undefined)
      this.#o.logger.warn({ chat: event.chat }, 'no replica answered a forwarded press');
    await event.respond({ text: text ?? say.replicaSilent, ephemeral: true });
  }

  /** The answer to the press sent with `ref`, or undefined when none came in time. */
  #awaitAnswer(ref: string): Promise<string | undefined> {
    const { clock, answerTimeoutMs } = this.#o;
    return new Promise((resolve) => {
      let timer: TimerHandle | undefined;
      const done = (text: string | undefined) => {
        if (timer !== undefined) clock.clearTimeout(timer);
        this.#waiting.delete(ref);
        resolve(text);
      };
      this.#waiting.set(ref, done);
      timer = clock.setTimeout(() => done(undefined), answerTimeoutMs);
    });
  }

  /** A control message from another replica, acted on when it concerns something running here. */
  async #receive({ chat, message }: ControlEnvelope): Promise<void> {
    this.#o.logger.debug({ chat, type: message.type }, 'control message from another replica');
    if (message.type === 'answer') {
      this.#waiting.get(message.ref)?.(message.text);
      return;
    }
    const user = { id: message.user.id, name: message.user.name ?? message.user.id };
    const key = userKey(chatPlatform(chat), user.id);
    const sender = { key, owner: this.#o.access.ownerKey(key) };
    const base = { chat, user };
    let event: ChatEvent;
    if (message.type === 'stop') event = { ...base, type: 'stop' };
    else if (message.type === 'edit')
      event = { ...base, type: 'edit', messageId: message.messageId, text: message.text };
    else {
      const { ref, messageId } = message;
      event = {
        ...base,
        type: 'button',
        payload: message.payload,
        ...(messageId === undefined ? {} : { messageId }),
        // The person waits on the replica the press reached: the answer goes back there.
        respond: async ({ text }) => {
          if (ref !== undefined) await this.#forward(chat, { type: 'answer', ref, text });
        },
      };
    }
    // Only the replica holding what the event acts on answers it; the others stay silent.
    if (this.#router.holds(event)) await this.#router.route(event, sender);
  }

  /**
   * True when another replica holds the chat's lease, i.e. runs its turn now.
   * Asks only when this replica runs nothing in the chat (its own hold would
   * look the same). Taking and at once releasing the lease is the only
   * question the lease answers without a race.
   */
  async #heldElsewhere(chat: string): Promise<boolean> {
    const { lease, ttlMs, logger } = this.#o;
    try {
      const probe = await lease.acquire(chat, { ttlMs, keepAlive: false, lookOnly: true });
      if (!probe) return true;
      await probe.release();
      return false;
    } catch (err) {
      logger.warn({ chat, err: describeError(err) }, 'could not ask who runs this chat');
      return false;
    }
  }

  /** Publishes a control message for the chat; false when it could not be sent. */
  async #forward(chat: string, message: ControlMessage): Promise<boolean> {
    try {
      await this.#o.bus.publish(chat, message);
      this.#o.logger.debug({ chat, type: message.type }, 'control message sent to the other replicas');
      return true;
    } catch (err) {
      this.#o.logger.error({ chat, err: describeError(err) }, 'control message could not be published');
      return false;
    }
  }
}
