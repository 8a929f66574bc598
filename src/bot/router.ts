/**
 * Where an admitted event goes in this process: a message to its chat's
 * runtime (queued behind the running turn), an edit to the turn or queued
 * message it changes, /stop and the Stop button to the running turn, an
 * approval press to the approval registry, a command to the command table.
 * Presses and stops act at once; nothing here waits for a whole turn.
 */
import type { Schedule } from '../schedule/types.js';
import type { InteractiveSession } from '../session/index.js';
import type { ChatEvent } from './adapter-contract.js';
import type { Sender } from './admission.js';
import type { BotContext } from './bot-context.js';
import { press } from './button-presses.js';
import { decodeButton } from './buttons.js';
import { ChatRuntime } from './chat-runtime.js';
import type { CommandContext } from './command-context.js';
import { runCommand } from './commands.js';
import { acceptMessage } from './incoming-message.js';
import type { QueuedMessage } from './queued-message.js';
import { MAX_INPUT_CHARS, say, withoutOperatorDetail } from './text.js';

/** Routes admitted events to the chats of this process. */
export class ChatRouter {
  readonly #d: BotContext;
  readonly #runtimes = new Map<string, ChatRuntime>();
  /** Commands still working with a chat's runtime; it is kept until they are done. */
  readonly #commandsRunning = new Map<string, number>();

  constructor(bot: BotContext) {
    this.#d = bot;
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
        if (payload.action === 'extend') return this.#d.budgets?.has(payload.id) ?? false;
        if (payload.action === 'prefix') return this.#d.rulePrompts?.has(payload.id) ?? false;
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

  /**
   * Runs a schedule's turn in its chat: one line introduces it, and the turn
   * answers under that line as the schedule's maker, behind whatever the
   * chat is doing now.
   */
  async runScheduled(schedule: Schedule): Promise<void> {
    const { outbox, logger } = this.#d;
    const [lineId] = await outbox.send(schedule.chat, say.scheduledRun(schedule.prompt), { plain: true });
    const queued = this.enqueue(schedule.chat, {
      kind: 'message',
      messageId: lineId ?? `schedule:${schedule.id}`,
      text: schedule.prompt,
      files: [],
      requester: { key: schedule.maker, name: schedule.makerName },
      owner: schedule.owner,
      unattended: this.#d.unattendedApprovals ?? 'ask',
    });
    if (!queued)
      logger.warn({ chat: schedule.chat, schedule: schedule.id }, 'scheduled run dropped: queue full');
  }

  /**
   * Queues a message the bot makes itself (a schedule's run, background
   * work in its thread) in `chat`; a full queue is said in the chat and false returned.
   */
  enqueue(chat: string, item: QueuedMessage): boolean {
    const runtime = this.#runtime(chat);
    const queued = runtime.enqueue(item);
    if (!queued) this.notify(chat, say.queueFull(this.#d.queueLimit));
    this.#prune(runtime);
    return queued;
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
    this.#d.backgroundRuns?.stopAll();
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
        return acceptMessage(this.#d, event, chat, sender);
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
        return press(this.#d, event, chat, sender);
      case 'command':
        return this.#command(event, chat, sender);
    }
  }

  #command(event: Extract<ChatEvent, { type: 'command' }>, chat: ChatRuntime, sender: Sender): void {
    const { access, background } = this.#d;
    const ctx: CommandContext = {
      ...this.#d,
      chat: event.chat,
      user: sender.key,
      userName: event.user.name,
      owner: sender.owner,
      runtime: chat,
      ...(event.messageId === undefined ? {} : { messageId: event.messageId }),
      // The net under every command's own wording: no setting names for people who cannot change them.
      answer: (text: string) =>
        this.answer(event, access.isOperator(sender.key) ? text : withoutOperatorDetail(text)),
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

  #runtime(chat: string): ChatRuntime {
    let r = this.#runtimes.get(chat);
    if (!r) {
      r = new ChatRuntime(chat, {
        ...this.#d,
        onIdle: (idle) => this.#prune(idle),
        operatorChat: this.#d.access.isOperatorChat(chat),
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
