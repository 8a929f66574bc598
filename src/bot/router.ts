/**
 * Where an admitted event goes in this process: a message to its chat's
 * runtime (queued behind the running turn), an edit to the turn or queued
 * message it changes, /stop and the Stop button to the running turn, an
 * approval press to the approval registry, a command to the command table.
 * Presses and stops act at once; nothing here waits for a whole turn.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PriceTable } from '../provider/pricing.js';
import type { InteractiveSession } from '../session/index.js';
import type { BotStateStore, SessionStore } from '../store/types.js';
import type { AccessPolicy } from './access.js';
import type { ButtonEvent, ChatEvent, MessageEvent } from './adapter-contract.js';
import type { Sender } from './admission.js';
import type { ApprovalRegistry } from './approvals.js';
import { takeAttachments } from './attachment-intake.js';
import type { Background } from './background.js';
import { decodeButton } from './buttons.js';
import type { ChatGateFactory } from './chat-lease.js';
import { ChatRuntime } from './chat-runtime.js';
import { runCommand } from './commands.js';
import type { BotObserver } from './options.js';
import type { SaveHealth } from './save-health.js';
import type { SessionRegistry } from './sessions-registry.js';
import type { Outbox } from './stream/types.js';
import { MAX_INPUT_CHARS, say } from './text.js';

/** What the router hands events to. */
export interface RouterDeps {
  registry: SessionRegistry;
  sessionStore: SessionStore;
  stateStore: BotStateStore;
  outbox: Outbox;
  approvals: ApprovalRegistry;
  access: AccessPolicy;
  background: Background;
  queueLimit: number;
  /** List prices for `/cost` and `/status`. */
  prices: PriceTable;
  clock: Clock;
  logger: Logger;
  /** How each chat runs its work; default at once (one process). */
  gate?: ChatGateFactory;
  /** Told when turns start and end. */
  observer?: BotObserver;
  /** Failed and recovered saves, said in the chat. */
  saveHealth?: SaveHealth;
}

/** Routes admitted events to the chats of this process. */
export class ChatRouter {
  readonly #d: RouterDeps;
  readonly #runtimes = new Map<string, ChatRuntime>();
  /** Commands still working with a chat's runtime; it is kept until they are done. */
  readonly #commandsRunning = new Map<string, number>();

  constructor(deps: RouterDeps) {
    this.#d = deps;
  }

  /** Acts on the event here. */
  async route(event: ChatEvent, sender: Sender): Promise<void> {
    const chat = this.#runtime(event.chat);
    try {
      await this.#route(event, chat, sender);
    } finally {
      this.#prune(chat);
    }
  }

  /**
   * True when the event acts on something in this process: the running
   * turn or a queued message of its chat, an approval prompt waiting here,
   * or an answer it gets here (an edit too long to take). Messages and
   * commands always do.
   */
  holds(event: ChatEvent): boolean {
    const chat = this.#runtimes.get(event.chat);
    switch (event.type) {
      case 'edit':
        return event.text.length > MAX_INPUT_CHARS || (chat?.hasMessage(event.messageId) ?? false);
      case 'stop':
        return chat?.busy ?? false;
      case 'button': {
        const payload = decodeButton(event.payload);
        if (!payload) return false;
        if (payload.action === 'stop') return chat !== undefined && chat.runningTurnId === payload.id;
        return this.#d.approvals.has(payload.id);
      }
      default:
        return true;
    }
  }

  /** True while the chat has a turn or task running or anything queued here. */
  busy(chat: string): boolean {
    return this.#runtimes.get(chat)?.busy ?? false;
  }

  /** Sends a line to the chat without waiting for pacing. */
  notify(chat: string, text: string): void {
    this.#d.background.track(this.#d.outbox.send(chat, text), 'notice');
  }

  /** Answers through the event's responder when it has one, else in the chat (without waiting for pacing). */
  async answer(event: ChatEvent, text: string): Promise<void> {
    if (event.type === 'button' || (event.type === 'command' && event.respond)) {
      await event.respond?.({ text, ephemeral: true });
      return;
    }
    const replyTo = 'messageId' in event ? event.messageId : undefined;
    this.#d.background.track(
      this.#d.outbox.send(event.chat, text, { plain: true, ...(replyTo ? { replyTo } : {}) }),
      'answer',
    );
  }

  /** Messages queued and replies running, over every chat of this process. */
  activity(): { queued: number; running: number } {
    let queued = 0;
    let running = 0;
    for (const r of this.#runtimes.values()) {
      queued += r.queueLength;
      if (r.runningTurnId !== undefined) running++;
    }
    return { queued, running };
  }

  /** Stops every chat's running turn and queue with `note` (shutdown). */
  stopAll(note: string): void {
    for (const r of this.#runtimes.values()) r.stop(note);
  }

  /** Resolves when no chat has a running or queued turn, and no background work is pending. */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.all([...this.#runtimes.values()].map((r) => r.idle()));
      if (!this.#d.background.busy && ![...this.#runtimes.values()].some((r) => r.busy)) return;
      await this.#d.background.settled();
    }
  }

  async #route(event: ChatEvent, chat: ChatRuntime, sender: Sender): Promise<void> {
    const { outbox, background, logger } = this.#d;
    switch (event.type) {
      case 'message':
        return this.#acceptMessage(event, chat, sender);
      case 'edit':
        if (event.text.length > MAX_INPUT_CHARS) {
          const sent = outbox.send(event.chat, say.tooLong(event.text.length), { replyTo: event.messageId });
          background.track(sent, 'answer');
        } else if (!chat.edit(event.messageId, event.text)) {
          logger.debug({ chat: event.chat }, 'edit of an old message ignored');
        }
        return;
      case 'stop': {
        const { dropped, running } = chat.stop();
        this.notify(event.chat, running || dropped ? say.stopped(dropped, running) : say.nothingToStop);
        return;
      }
      case 'button':
        return this.#press(event, chat, sender);
      case 'command':
        return this.#command(event, chat, sender);
    }
  }

  async #press(event: ButtonEvent, chat: ChatRuntime, sender: Sender): Promise<void> {
    const payload = decodeButton(event.payload);
    if (!payload) return event.respond({ text: say.expired, ephemeral: true });
    if (payload.action !== 'stop') {
      const { approvals } = this.#d;
      // A prompt nobody waits for any more (its turn was cut off) must not keep buttons that do nothing.
      const forgotten = !approvals.has(payload.id) && !approvals.settledHere(payload.id);
      await approvals.press(event, payload, sender.key);
      if (forgotten && event.messageId !== undefined) {
        const edit = this.#d.outbox.edit(event.chat, event.messageId, say.approvalExpired, { buttons: [] });
        this.#d.background.track(edit, 'expired prompt edit');
      }
      return;
    }
    if (chat.runningTurnId !== payload.id)
      return event.respond({ text: say.alreadyFinished, ephemeral: true });
    chat.stop();
    return event.respond({ text: say.stopping, ephemeral: true });
  }

  #command(event: Extract<ChatEvent, { type: 'command' }>, chat: ChatRuntime, sender: Sender): void {
    const { registry, sessionStore, access, logger, background, prices } = this.#d;
    const ctx = {
      chat: event.chat,
      user: sender.key,
      userName: event.user.name,
      owner: sender.owner,
      runtime: chat,
      ...(event.messageId === undefined ? {} : { messageId: event.messageId }),
      registry,
      sessionStore,
      prices,
      access,
      logger,
      answer: (text: string) => this.answer(event, text),
      reportSave: async (session: InteractiveSession) => {
        const health = this.#d.saveHealth;
        if (!health) return;
        const line = await health.afterSave(event.chat, session.getSession().lastSave, this.#d.clock.now());
        if (line) this.notify(event.chat, line);
      },
    };
    // Commands may wait on a compaction or a store; the sink must not.
    const running = this.#commandsRunning;
    running.set(event.chat, (running.get(event.chat) ?? 0) + 1);
    const done = runCommand(ctx, event.name, event.args).finally(() => {
      const left = (running.get(event.chat) ?? 1) - 1;
      if (left > 0) running.set(event.chat, left);
      else running.delete(event.chat);
      this.#prune(chat);
    });
    background.track(done, 'command');
  }

  #acceptMessage(event: MessageEvent, chat: ChatRuntime, sender: Sender): void {
    // Answers about the message (a file left out, too long, a full queue) are sent plain: they may quote a file name.
    const reply = (text: string) =>
      this.#d.background.track(
        this.#d.outbox.send(event.chat, text, { plain: true, replyTo: event.messageId }),
        'answer',
      );
    const text = event.text.trim();
    const tooLong = event.text.length > MAX_INPUT_CHARS;
    const { files, answers } = takeAttachments(event.attachments ?? [], text.length > 0 && !tooLong);
    for (const line of answers) reply(line);
    if (!text && !files.length) return;
    if (tooLong) {
      reply(say.tooLong(event.text.length));
      return;
    }
    // The answer to a tool's question waiting for this person here, not a new message.
    const user = { key: sender.key, name: event.user.name };
    if (!files.length && this.#d.approvals.takeReply(event.chat, user, text, event.messageId)) return;
    const queued = chat.enqueue({
      kind: 'message',
      messageId: event.messageId,
      text: withReplyContext(event),
      files,
      requester: { key: sender.key, name: event.user.name },
      owner: sender.owner,
    });
    if (!queued) reply(say.queueFull(this.#d.queueLimit));
  }

  #runtime(chat: string): ChatRuntime {
    let r = this.#runtimes.get(chat);
    if (!r) {
      const d = this.#d;
      r = new ChatRuntime(chat, {
        registry: d.registry,
        outbox: d.outbox,
        approvals: d.approvals,
        stateStore: d.stateStore,
        clock: d.clock,
        logger: d.logger,
        queueLimit: d.queueLimit,
        onIdle: (idle) => this.#prune(idle),
        ...(d.gate ? { gate: d.gate } : {}),
        ...(d.observer ? { observer: d.observer } : {}),
        ...(d.saveHealth ? { saveHealth: d.saveHealth } : {}),
        prices: d.prices,
      });
      this.#runtimes.set(chat, r);
    }
    return r;
  }

  /** Forgets an idle chat so a long-lived bot does not keep one object per chat it ever saw. */
  #prune(r: ChatRuntime): void {
    if (r.busy || this.#commandsRunning.has(r.chat) || this.#runtimes.get(r.chat) !== r) return;
    this.#runtimes.delete(r.chat);
    this.#d.logger.debug({ chat: r.chat }, 'idle chat forgotten');
  }
}

const QUOTE_LIMIT = 500;

/**
 * A reply to an earlier message carries what it answers, so the model knows
 * which part of a long conversation "this" or "no, the second one" refers to.
 */
function withReplyContext(event: MessageEvent): string {
  const quoted = event.replyTo?.text?.trim();
  if (!quoted) return event.text;
  const cut = quoted.length > QUOTE_LIMIT ? `${quoted.slice(0, QUOTE_LIMIT)}…` : quoted;
  const whose = event.replyTo?.fromBot ? 'your earlier message' : 'an earlier message';
  return `(In reply to ${whose}: "${cut}")\n${event.text}`;
}
