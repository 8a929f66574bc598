/**
 * One chat: its queue of messages, the turn running now and its reply
 * stream. The core feeds the session one message at a time, so /stop can
 * drop what is queued and an edit of the running message can take its place.
 */
import type { Clock } from '../clock.js';
import { describeError, isErrorCode, SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InteractiveSession } from '../session/index.js';
import type { PermissionRequest, ToolEndEvent, ToolStartEvent, TurnResult } from '../session/types.js';
import type { BotStateStore } from '../store/types.js';
import type { ApprovalRegistry, Requester } from './approvals.js';
import { shortId, stopButtons } from './buttons.js';
import type { SessionRegistry } from './sessions-registry.js';
import type { Outbox, ReplyStream } from './stream/types.js';
import { say } from './text.js';

/** A message waiting for its turn. */
export interface QueuedMessage {
  kind: 'message';
  messageId: string;
  text: string;
  images: Array<{ mediaType: string; data: string }>;
  requester: Requester;
  /** Owner key for a session this message creates. */
  owner: string;
}

/** Work that must not overlap a turn (/new, /compact...). */
export interface QueuedTask {
  kind: 'task';
  name: string;
  run: () => Promise<void>;
  /** Called by /stop while the task runs (aborts a compaction). */
  abort?: () => void;
}

type QueueItem = QueuedMessage | QueuedTask;

/** Everything a chat runtime uses. */
export interface RuntimeDeps {
  registry: SessionRegistry;
  outbox: Outbox;
  approvals: ApprovalRegistry;
  stateStore: BotStateStore;
  clock: Clock;
  logger: Logger;
  queueLimit: number;
}

interface RunningTurn {
  turnId: string;
  messageId: string;
  requester: Requester;
  session?: InteractiveSession;
  /** Set by stop/edit/shutdown: the note the reply ends with. */
  stopNote?: string;
}

const TOOL_MARK: Record<ToolEndEvent['status'], string> = {
  ok: '✓',
  error: '✗',
  denied: '🚫',
  interrupted: '⏹',
};

/** The state of one chat key. */
export class ChatRuntime {
  readonly chat: string;
  readonly #d: RuntimeDeps;
  #queue: QueueItem[] = [];
  #running: RunningTurn | undefined;
  #task: QueuedTask | undefined;
  #pump: Promise<void> | undefined;

  constructor(chat: string, deps: RuntimeDeps) {
    this.chat = chat;
    this.#d = deps;
  }

  /** True while a turn or task runs or anything is queued. */
  get busy(): boolean {
    return this.#pump !== undefined;
  }

  get queueLength(): number {
    return this.#queue.length;
  }

  /** The running turn's id, for its Stop button. */
  get runningTurnId(): string | undefined {
    return this.#running?.turnId;
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
    const dropped = this.#queue.filter((i) => i.kind === 'message').length;
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
   * An edited message. The running turn's own message: abort that turn and
   * answer the new text next. A queued one: its text is replaced. Others: false.
   */
  edit(messageId: string, text: string): boolean {
    const turn = this.#running;
    if (turn && turn.messageId === messageId && turn.stopNote === undefined) {
      const item = this.#current;
      if (item) this.#queue.unshift({ ...item, text });
      this.#abortRunning('✏️ message edited; answering the new version');
      return true;
    }
    const queued = this.#queue.find(
      (i): i is QueuedMessage => i.kind === 'message' && i.messageId === messageId,
    );
    if (queued) queued.text = text;
    return queued !== undefined;
  }

  /** Resolves when nothing runs or waits in this chat. */
  async idle(): Promise<void> {
    while (this.#pump) await this.#pump;
  }

  #current: QueuedMessage | undefined;

  #abortRunning(note: string): boolean {
    const turn = this.#running;
    if (!turn || turn.stopNote !== undefined) return turn !== undefined;
    turn.stopNote = note;
    this.#d.approvals.closeTurn(turn.turnId);
    turn.session?.abort();
    return true;
  }

  #kick(): void {
    if (this.#pump) return;
    this.#pump = this.#drain().finally(() => {
      this.#pump = undefined;
    });
  }

  async #drain(): Promise<void> {
    for (let item = this.#queue.shift(); item; item = this.#queue.shift()) {
      if (item.kind === 'task') {
        this.#task = item;
        try {
          await item.run();
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
    const { registry, outbox, stateStore, approvals, clock, logger } = this.#d;
    const turn: RunningTurn = { turnId: shortId(), messageId: item.messageId, requester: item.requester };
    this.#running = turn;
    this.#current = item;
    let release: (() => void) | undefined;
    try {
      const session = await registry.forChat(this.chat, item.owner);
      turn.session = session;
      release = await registry.lock(session);
      if (turn.stopNote !== undefined) return;
      const sessionId = session.getSession().getSessionId();
      await stateStore.beginTurn({
        chat: this.chat,
        sessionId,
        startedAt: new Date(clock.now()).toISOString(),
      });
      logger.info({ chat: this.chat, sessionId, turn: turn.turnId }, 'turn started');
      const reply = outbox.stream(this.chat, {
        replyTo: item.messageId,
        liveButtons: stopButtons(turn.turnId),
      });
      try {
        await this.#stream(session, turn, item, reply);
      } finally {
        outbox.stopTyping(this.chat);
        approvals.closeTurn(turn.turnId);
        await stateStore.endTurn(this.chat).catch((err: unknown) => {
          logger.error({ chat: this.chat, err: describeError(err) }, 'could not clear the active turn');
        });
      }
    } catch (err) {
      logger.error({ chat: this.chat, turn: turn.turnId, err: describeError(err) }, 'turn could not run');
      this.#say(say.turnError(describeError(err)));
    } finally {
      this.#running = undefined;
      this.#current = undefined;
      release?.();
    }
  }

  /** Runs one turn with its events wired to the reply; reports errors in the chat. */
  async #stream(session: InteractiveSession, turn: RunningTurn, item: QueuedMessage, reply: ReplyStream) {
    const { outbox, approvals, logger } = this.#d;
    let failure: Error | undefined;
    let statusShown = false;
    const onDelta = (delta: string) => {
      if (statusShown) {
        reply.setStatus(undefined);
        statusShown = false;
      }
      reply.append(delta);
    };
    const onToolStart = (e: ToolStartEvent) => {
      reply.setStatus(`⚙ ${e.summary}`);
      statusShown = true;
    };
    const onToolEnd = (e: ToolEndEvent) => {
      reply.setStatus(`${TOOL_MARK[e.status] ?? '•'} ${e.summary}`);
      statusShown = true;
    };
    // The turn's own error also rejects `completed`; an `error` event alone (a failed
    // auto-compaction the turn survived) is only logged.
    const onError = (err: Error) => {
      logger.warn({ chat: this.chat, err: describeError(err) }, 'session reported an error');
    };
    const onNotice = (text: string) => this.#say(`ℹ️ ${text}`);
    const onPermission = (request: PermissionRequest) => {
      void this.#ask(session, turn, request, reply);
    };
    session.on('text_delta', onDelta);
    session.on('tool_start', onToolStart);
    session.on('tool_end', onToolEnd);
    session.on('error', onError);
    session.on('notice', onNotice);
    session.on('permission_request', onPermission);
    outbox.startTyping(this.chat);
    let result: TurnResult | undefined;
    try {
      // Stopped while the session was loading or the turn was being recorded: nothing to run.
      if (turn.stopNote !== undefined)
        throw new SwitchboardError('ABORTED', 'Stopped before the reply started.');
      const { completed } = await session.submit({
        text: item.text,
        author: item.requester.name,
        ...(item.images.length ? { images: item.images } : {}),
      });
      result = await completed;
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error(String(err));
    } finally {
      session.off('text_delta', onDelta);
      session.off('tool_start', onToolStart);
      session.off('tool_end', onToolEnd);
      session.off('error', onError);
      session.off('notice', onNotice);
      session.off('permission_request', onPermission);
    }
    outbox.stopTyping(this.chat);
    approvals.closeTurn(turn.turnId);
    const stopped = turn.stopNote !== undefined || result?.state === 'interrupted';
    if (statusShown && !failure) reply.setStatus(undefined);
    try {
      await reply.finish(stopped ? { note: turn.stopNote ?? say.stoppedNote } : undefined);
    } catch (err) {
      logger.error({ chat: this.chat, err: describeError(err) }, 'reply could not be delivered');
    }
    const aborted = stopped && (failure === undefined || isErrorCode(failure, 'ABORTED'));
    if (failure && !aborted) {
      logger.warn({ chat: this.chat, turn: turn.turnId, err: describeError(failure) }, 'turn failed');
      this.#say(say.turnError(describeError(failure)));
    }
    logger.info({ chat: this.chat, turn: turn.turnId, state: result?.state ?? 'failed' }, 'turn ended');
  }

  /** Makes the text so far permanent, then posts the approval prompt under it. */
  async #ask(session: InteractiveSession, turn: RunningTurn, request: PermissionRequest, reply: ReplyStream) {
    const { outbox, approvals, logger } = this.#d;
    try {
      await reply.checkpoint();
    } catch (err) {
      logger.warn({ chat: this.chat, err: describeError(err) }, 'checkpoint before an approval failed');
    }
    if (this.#running !== turn || turn.stopNote !== undefined) {
      session.resolvePermission(request.id, 'deny');
      return;
    }
    // Nobody is thinking while we wait for a person: no typing indicator.
    outbox.stopTyping(this.chat);
    approvals.open({
      chat: this.chat,
      turnId: turn.turnId,
      request,
      requester: turn.requester,
      resolve: (answer) => {
        const accepted = session.resolvePermission(request.id, answer);
        if (accepted && this.#running === turn) outbox.startTyping(this.chat);
        return accepted;
      },
    });
  }

  #say(text: string): void {
    this.#d.outbox.send(this.chat, text).catch((err: unknown) => {
      this.#d.logger.error({ chat: this.chat, err: describeError(err) }, 'could not send a message');
    });
  }

  /** Name of the task running now, if any. */
  get task(): string | undefined {
    return this.#task?.name;
  }
}
