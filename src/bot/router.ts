/**
 * Where an admitted event goes in this process: a message to its chat's
 * runtime (queued behind the running turn), an edit to the turn or queued
 * message it changes, /stop and the Stop button to the running turn, an
 * approval press to the approval registry, a command to the command table.
 * Presses and stops act at once; nothing here waits for a whole turn.
 */
import type { Clock } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { BusyMode, Schedule } from '../schedule/types.js';
import type { InteractiveSession, PriceTable } from '../session/index.js';
import type { BotStateStore, SessionStore } from '../store/types.js';
import type { AccessPolicy } from './access.js';
import type { ButtonEvent, ChatEvent, MessageEvent } from './adapter-contract.js';
import type { Sender } from './admission.js';
import type { ApprovalRegistry } from './approvals.js';
import { takeAttachments } from './attachment-intake.js';
import type { Background } from './background.js';
import type { BackgroundRuns } from './bg-runs.js';
import type { Budgets } from './budgets.js';
import { acceptWhileBusy } from './busy.js';
import { type ButtonPayload, decodeButton } from './buttons.js';
import type { ChatGateFactory } from './chat-lease.js';
import { ChatRuntime } from './chat-runtime.js';
import type { QueuedMessage, UnattendedApprovals } from './chat-turn.js';
import { runCommand } from './commands.js';
import type { BotObserver } from './options.js';
import type { RulePrompts } from './rule-prompts.js';
import type { Rules } from './rules.js';
import type { SaveHealth } from './save-health.js';
import type { SessionRegistry } from './sessions-registry.js';
import { answerStoredApproval } from './stored-approvals.js';
import type { Outbox } from './stream/types.js';
import { MAX_INPUT_CHARS, say, withoutOperatorDetail } from './text.js';
import { DEFAULT_MAX_AUDIO_SECONDS, type VoiceOptions } from './voice.js';

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
  /** Hears voice notes; without it they get the one line that says they cannot be read. */
  voice?: VoiceOptions;
  /** Schedules and per-chat settings (/schedule, /timezone, /busy); absent: those commands say so. */
  scheduler?: Scheduler;
  /** How approvals are answered in scheduled runs; default `ask`. */
  unattendedApprovals?: UnattendedApprovals;
  /** Busy mode of chats when there is no scheduler to keep per-chat settings; default `steer`. */
  busy?: BusyMode;
  /** Background runs (`/bg`), stopped with the chats at shutdown. */
  backgroundRuns?: BackgroundRuns;
  /** Spending caps, and how long a turn paused on one waits for an extension. */
  budgets?: { budgets: Budgets; waitMs: number };
  /** Stored rules, and the `Always allow` presses that make them. */
  rules?: { rules: Rules; prompts: RulePrompts };
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
        if (payload.action === 'extend') return this.#d.budgets?.budgets.has(payload.id) ?? false;
        if (payload.action === 'prefix') return this.#d.rules?.prompts.has(payload.id) ?? false;
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
    if (payload.action === 'extend') return this.#extend(event, payload.id, sender);
    if ((payload.action === 'always' || payload.action === 'prefix') && this.#d.rules)
      return this.#d.rules.prompts.press(event, payload, sender.key);
    if (payload.action !== 'stop') {
      const { approvals } = this.#d;
      // A prompt nobody waits for any more (its turn was cut off) must not keep buttons that do nothing.
      const forgotten = !approvals.has(payload.id) && !approvals.settledHere(payload.id);
      // Posted by a process before this one (or another replica): the wait is stored in the chat's session.
      if (forgotten && (await this.#answerStored(event, payload, chat, sender))) return;
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

  /** Answers a press on a prompt whose turn is stored as waiting; false when none is. */
  async #answerStored(event: ButtonEvent, payload: ButtonPayload, chat: ChatRuntime, sender: Sender) {
    if (chat.busy) return false;
    const session = await this.#d.registry.existing(event.chat);
    const taken = await answerStoredApproval(this.#d, session, event, payload, sender.key);
    if (taken === undefined) return false;
    if (taken !== 'answered' && !chat.enqueue(taken)) {
      this.#d.logger.warn({ chat: event.chat }, 'the answered turn could not be queued');
    }
    return true;
  }

  /** `Allow $X more` on a budget notice: an admin extends the cap; the notice shows who did. */
  async #extend(event: ButtonEvent, id: string, sender: Sender): Promise<void> {
    const budgets = this.#d.budgets?.budgets;
    const { answer, edited } = budgets
      ? await budgets.extend(id, sender.key, event.user.name)
      : { answer: say.expired, edited: undefined };
    if (edited !== undefined && event.messageId !== undefined) {
      const edit = this.#d.outbox.edit(event.chat, event.messageId, edited, { buttons: [] });
      this.#d.background.track(edit, 'budget notice edit');
    }
    await event.respond({ text: answer, ephemeral: true });
  }

  #command(event: Extract<ChatEvent, { type: 'command' }>, chat: ChatRuntime, sender: Sender): void {
    const { registry, sessionStore, access, logger, background, prices, scheduler, backgroundRuns } = this.#d;
    const ctx = {
      ...(scheduler ? { scheduler } : {}),
      ...(backgroundRuns ? { backgroundRuns } : {}),
      chat: event.chat,
      user: sender.key,
      userName: event.user.name,
      owner: sender.owner,
      runtime: chat,
      ...(event.messageId === undefined ? {} : { messageId: event.messageId }),
      registry,
      sessionStore,
      prices,
      ...(this.#d.voice?.pricePerMinute === undefined ? {} : { voicePrice: this.#d.voice.pricePerMinute }),
      access,
      logger,
      ...(this.#d.budgets ? { budgets: this.#d.budgets.budgets } : {}),
      ...(this.#d.rules ? { rules: this.#d.rules.rules } : {}),
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

  async #acceptMessage(event: MessageEvent, chat: ChatRuntime, sender: Sender): Promise<void> {
    // Answers about the message (a file left out, too long, a full queue) are sent plain: they may quote a file name.
    const reply = (text: string) =>
      this.#d.background.track(
        this.#d.outbox.send(event.chat, text, { plain: true, replyTo: event.messageId }),
        'answer',
      );
    const text = event.text.trim();
    const tooLong = event.text.length > MAX_INPUT_CHARS;
    const voice = this.#d.voice;
    const hearing = {
      on: voice !== undefined,
      maxSeconds: voice?.maxSeconds ?? DEFAULT_MAX_AUDIO_SECONDS,
      admin: this.#d.access.isAdmin(sender.key),
    };
    const { files, audio, answers } = takeAttachments(
      event.attachments ?? [],
      text.length > 0 && !tooLong,
      hearing,
    );
    for (const line of answers) reply(line);
    if (!text && !files.length && !audio.length) return;
    if (tooLong) {
      reply(say.tooLong(event.text.length));
      return;
    }
    // The answer to a tool's question waiting for this person here, not a new message.
    const user = { key: sender.key, name: event.user.name };
    if (
      !files.length &&
      !audio.length &&
      this.#d.approvals.takeReply(event.chat, user, text, event.messageId)
    )
      return;
    const item = {
      kind: 'message' as const,
      messageId: event.messageId,
      text: withReplyContext(event),
      files,
      ...(audio.length ? { audio } : {}),
      requester: { key: sender.key, name: event.user.name },
      owner: sender.owner,
    };
    const queued = acceptWhileBusy(chat, item, await this.#busyMode(chat), () => reply(say.steered));
    if (!queued) reply(say.queueFull(this.#d.queueLimit));
  }

  /** How the chat takes a message while a reply runs; asked only then. */
  async #busyMode(chat: ChatRuntime): Promise<BusyMode> {
    const { scheduler, busy, logger } = this.#d;
    if (chat.runningTurnId === undefined) return 'queue';
    if (!scheduler) return busy ?? 'steer';
    return scheduler.busyMode(chat.chat).catch((err: unknown) => {
      logger.warn({ chat: chat.chat, err: describeError(err) }, 'could not read the chat settings; queued');
      return 'queue' as const;
    });
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
        ...(d.budgets ? { budgets: d.budgets } : {}),
        ...(d.rules ? { rules: d.rules.rules } : {}),
        prices: d.prices,
        operatorChat: d.access.isOperatorChat(chat),
        ...(d.voice ? { voice: d.voice } : {}),
        ...(d.scheduler ? { scheduler: d.scheduler } : {}),
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
