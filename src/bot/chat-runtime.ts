/**
 * One chat: its queue of messages, the turn running now and its reply
 * stream. The core feeds the session one message at a time, so /stop can
 * drop what is queued and an edit of the running message can take its place.
 */
import { describeError } from '../errors.js';
import type { BotContext } from './bot-context.js';
import { shortId } from './buttons.js';
import { type ChatGate, OPEN_GATE } from './chat-lease.js';
import type { QueuedMessage, RunningTurn } from './queued-message.js';
import { say, withoutOperatorDetail } from './text.js';
import { runQueuedTurn, type TurnRunParts } from './turn-run.js';

/** Work that must not overlap a turn (/new, /compact...). */
export interface QueuedTask {
  kind: 'task';
  name: string;
  run: () => Promise<void>;
  /** Called by /stop while the task runs (aborts a compaction). */
  abort?: () => void;
}

type QueueItem = QueuedMessage | QueuedTask;

/** The bot's parts a chat runtime uses: those of its turns, and its own. */
type RuntimeParts = TurnRunParts | 'queueLimit' | 'gate';

/** What a chat runtime works with: the bot's parts it uses, and what is the chat's own. */
export interface RuntimeDeps extends Pick<BotContext, RuntimeParts> {
  /** Called when the chat has nothing running or queued. */
  onIdle?: (runtime: ChatRuntime) => void;
  /** Everyone in this chat is an operator (the terminal): its notices and errors keep setting names. */
  operatorChat?: boolean;
}

/** The state of one chat key. */
export class ChatRuntime {
  readonly chat: string;
  readonly #d: RuntimeDeps;
  #queue: QueueItem[] = [];
  /** Messages handed to the running turn that have not joined it yet. */
  readonly #steering = new Set<{ item: QueuedMessage; dropped: boolean }>();
  /** Where the next message that failed to join the turn goes: after the ones before it, ahead of the rest. */
  #frontInserts = 0;
  #running: RunningTurn | undefined;
  #task: QueuedTask | undefined;
  #pump: Promise<void> | undefined;

  readonly #gate: ChatGate;

  constructor(chat: string, deps: RuntimeDeps) {
    this.chat = chat;
    this.#d = deps;
    this.#gate = deps.gate?.(chat, (text) => this.#tell(text)) ?? OPEN_GATE;
  }

  /** True while a turn or task runs or anything is queued. */
  get busy(): boolean {
    return this.#pump !== undefined;
  }

  /** Messages waiting: queued, or handed to the running turn and not joined yet. */
  get queueLength(): number {
    return this.#queue.length + this.#steering.size;
  }

  /** The running turn's id, for its Stop button. */
  get runningTurnId(): string | undefined {
    return this.#running?.turnId;
  }

  /** True when an edit of this message acts here: the running turn's own message, or a queued one. */
  hasMessage(messageId: string): boolean {
    const turn = this.#running;
    if (turn && turn.messageId === messageId && turn.stopNote === undefined) return true;
    return this.#queue.some((i) => i.kind === 'message' && i.messageId === messageId);
  }

  /** Queues a message; false when the queue is full (the caller answers). */
  enqueue(item: QueueItem): boolean {
    if (item.kind === 'message' && this.#queue.length >= this.#d.queueLimit) return false;
    this.#queue.push(item);
    this.#kick();
    return true;
  }

  /**
   * Stops the running turn (if any) and drops the queued messages. Returns
   * how many were dropped and whether something was running.
   */
  stop(note: string = say.stoppedNote): { dropped: number; running: boolean } {
    for (const entry of this.#steering) entry.dropped = true;
    const dropped = this.#queue.filter((i) => i.kind === 'message').length + this.#steering.size;
    this.#steering.clear();
    this.#queue = this.#queue.filter((i) => i.kind !== 'message');
    let running = this.#abortRunning(note);
    if (this.#task?.abort) {
      this.#task.abort();
      running = true;
    }
    this.#d.logger.info({ chat: this.chat, dropped, running }, 'chat stopped');
    return { dropped, running };
  }

  /**
   * A message written while a turn runs, in `steer` mode: it joins the
   * running turn at its next model request, and `joined` is called. When the
   * turn ends first (it was writing its final answer), the message is queued
   * at the front, as in `queue` mode. False when the queue is full.
   */
  steer(item: QueuedMessage, joined: () => void): boolean {
    const turn = this.#running;
    const session = turn?.session;
    // Files are saved by a turn's own prompt; a message with files waits for its turn.
    if (!turn || !session || turn.stopNote !== undefined || item.files.length) return this.enqueue(item);
    if (this.#queue.length + this.#steering.size >= this.#d.queueLimit) return false;
    const entry = { item, dropped: false };
    this.#steering.add(entry);
    void session.steer({ text: item.text, author: item.requester.name }).then((ok) => {
      if (entry.dropped) return;
      this.#steering.delete(entry);
      if (ok) return joined();
      this.#queue.splice(this.#frontInserts++, 0, item);
      this.#kick();
    });
    return true;
  }

  /** A message written while a turn runs, in `interrupt` mode: the running reply stops and this one runs next. */
  interrupt(item: QueuedMessage): boolean {
    if (!this.#running) return this.enqueue(item);
    this.#queue.unshift(item);
    this.#frontInserts = 1;
    this.#abortRunning(say.interruptedNote);
    this.#kick();
    return true;
  }

  /**
   * An edited message. The running turn's own message: abort that turn and
   * answer the new text next. A queued one: its text is replaced. Others: false.
   */
  edit(messageId: string, text: string): boolean {
    const turn = this.#running;
    if (turn && turn.messageId === messageId && turn.stopNote === undefined) {
      const item = this.#current;
      // The files are already in the session (saved, and in the interrupted turn's message): not again.
      if (item) this.#queue.unshift({ ...item, text, files: [], audio: [] });
      // Messages that were to join the turn come after the edited one.
      this.#frontInserts = item ? 1 : 0;
      this.#abortRunning('✏️ message edited; answering the new version');
      return true;
    }
    const queued = this.#queue.find(
      (i): i is QueuedMessage => i.kind === 'message' && i.messageId === messageId,
    );
    if (queued) queued.text = text;
    return queued !== undefined;
  }

  /**
   * Runs `work` (a command that changes the session, such as /rename) so no
   * replica's cached copy of the session overwrites it.
   */
  exclusive(work: () => Promise<void>): Promise<void> {
    return this.#gate.exclusive(work);
  }

  /** Resolves when nothing runs or waits in this chat. */
  async idle(): Promise<void> {
    while (this.#pump) await this.#pump;
  }

  #current: QueuedMessage | undefined;

  #abortRunning(note: string): boolean {
    this.#gate.wake();
    const turn = this.#running;
    if (!turn || turn.stopNote !== undefined) return turn !== undefined;
    turn.stopNote = note;
    turn.cancel?.abort();
    this.#d.approvals.closeTurn(turn.turnId);
    turn.session?.abort();
    return true;
  }

  #kick(): void {
    if (this.#pump) return;
    this.#pump = this.#drain().finally(() => {
      this.#pump = undefined;
      // Something may have been queued between the drain's last look and now.
      if (this.#queue.length) this.#kick();
      else this.#d.onIdle?.(this);
    });
  }

  async #drain(): Promise<void> {
    for (let item = this.#queue.shift(); item; item = this.#queue.shift()) {
      if (item.kind === 'task') {
        this.#task = item;
        try {
          await this.#gate.run(
            () => false,
            () => item.run(),
          );
        } catch (err) {
          this.#d.logger.error(
            { chat: this.chat, task: item.name, err: describeError(err) },
            'command failed',
          );
        } finally {
          this.#task = undefined;
        }
        continue;
      }
      await this.#runTurn(item);
    }
  }

  async #runTurn(item: QueuedMessage): Promise<void> {
    const turn: RunningTurn = { turnId: shortId(), messageId: item.messageId, requester: item.requester };
    this.#running = turn;
    this.#frontInserts = 0;
    this.#current = item;
    try {
      await this.#gate.run(
        () => turn.stopNote !== undefined,
        (signal) =>
          runQueuedTurn(
            this.#d,
            {
              chat: this.chat,
              isCurrent: () => this.#running === turn,
              tell: (text) => this.#tell(text),
              stop: (note) => this.#abortRunning(note),
            },
            turn,
            item,
            signal,
          ),
      );
    } catch (err) {
      this.#d.logger.error(
        { chat: this.chat, turn: turn.turnId, err: describeError(err) },
        'turn could not run',
      );
      this.#tell(say.turnError(describeError(err)));
      item.onDone?.({ outcome: 'error' });
    } finally {
      this.#running = undefined;
      this.#current = undefined;
    }
  }

  #tell(line: string): void {
    // Errors and notices often end in a fix only the operator can apply (a setting); chat users get the problem.
    const text = this.#d.operatorChat ? line : withoutOperatorDetail(line);
    this.#d.outbox.send(this.chat, text).catch((err: unknown) => {
      this.#d.logger.error({ chat: this.chat, err: describeError(err) }, 'could not send a message');
    });
  }

  /** Name of the task running now, if any. */
  get task(): string | undefined {
    return this.#task?.name;
  }
}
