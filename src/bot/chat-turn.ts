/**
 * One agent turn, wired to its reply: text deltas stream into the reply,
 * tool activity shows as a status line, permission requests become approval
 * prompts under the text so far, files the agent sends follow the text
 * before them, and the end (done, stopped, failed) is
 * always said in the chat.
 */
import { describeError, isErrorCode, SwitchboardError } from '../errors.js';
import type { Scheduler } from '../schedule/scheduler.js';
import type { InteractiveSession } from '../session/index.js';
import { formatUsd, ledgerCost } from '../session/index.js';
import type {
  ElicitationRequest,
  PendingPermission,
  SessionEvents,
  ToolEndEvent,
  ToolProgressEvent,
  ToolStartEvent,
  TurnResult,
} from '../session/types.js';
import type { ChatSchedules, TokenUsage } from '../vocabulary.js';
import type { BotContext } from './bot-context.js';
import { BudgetTurn } from './budget-turn.js';
import { chatFileSender } from './file-delivery.js';
import type { QueuedMessage, RunningTurn, TurnOutcome } from './queued-message.js';
import type { ReplyStream } from './stream/types.js';
import { say } from './text.js';

/**
 * The bot's parts a turn uses: the sessions' prices (the reply footer, the
 * budgets), the outbox and approvals, save health, the scheduler (the
 * Schedule tool, as the turn's requester), caps and rules.
 */
export type TurnParts =
  | 'sessions'
  | 'outbox'
  | 'approvals'
  | 'logger'
  | 'clock'
  | 'approvalTimeoutMs'
  | 'saveHealth'
  | 'scheduler'
  | 'budgets'
  | 'rules';

/** What {@link streamTurn} works with: the turn's own parts, and the bot's it uses. */
export interface TurnContext extends Pick<BotContext, TurnParts> {
  chat: string;
  session: InteractiveSession;
  turn: RunningTurn;
  item: QueuedMessage;
  reply: ReplyStream;
  /** False once the chat has moved on from this turn (stopped, ended). */
  isCurrent: () => boolean;
  /** Sends a one-off line to the chat without waiting for it. */
  tell: (text: string) => void;
}

const TOOL_MARK: Record<ToolEndEvent['status'], string> = {
  ok: '✓',
  error: '✗',
  denied: '🚫',
  interrupted: '⏹',
};

/** Runs one turn with its events wired to the reply; reports errors in the chat. */
export async function streamTurn(
  ctx: TurnContext,
): Promise<{ outcome: TurnOutcome; usage?: TokenUsage; response?: string }> {
  const { session, turn, item, reply, outbox, approvals, logger } = ctx;
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
    // The API's own tools (web search, fetch) carry their own mark: `🔎 Searching: …`.
    reply.setStatus(e.server ? e.summary : `⚙ ${e.summary}`);
    statusShown = true;
  };
  const onToolProgress = (e: ToolProgressEvent) => {
    reply.setStatus(`⏳ ${e.text.length > 200 ? `${e.text.slice(0, 199)}…` : e.text}`);
    statusShown = true;
  };
  // Set when a stored rule allowed the running call: its tool line says which.
  let ruleNote = '';
  const onToolEnd = (e: ToolEndEvent) => {
    reply.setStatus(`${TOOL_MARK[e.status] ?? '•'} ${e.summary}${ruleNote}`);
    ruleNote = '';
    statusShown = true;
  };
  // What the model says it is doing between tool calls: its newest line, so the chat never sits frozen.
  // Runs on every thinking delta with the whole note so far: find its last line without splitting all of it.
  const onProgress = (note: string) => {
    const text = note.trimEnd();
    const line = text.slice(text.lastIndexOf('\n') + 1).trim();
    if (!line) return;
    reply.setStatus(`💭 ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`);
    statusShown = true;
  };
  // The turn's own error also rejects `completed`; an `error` event alone (a failed
  // auto-compaction the turn survived) is only logged.
  const onError = (err: Error) => {
    logger.warn({ chat: ctx.chat, err: describeError(err) }, 'session reported an error');
  };
  const onNotice = (text: string) => ctx.tell(`ℹ️ ${text}`);
  const onPermission = (request: PendingPermission) => {
    if (item.unattended === 'deny') {
      request.answer('deny');
      ctx.tell(say.unattendedDenied(request.toolName));
      return;
    }
    void ask(ctx, request, (id) => {
      ruleNote = say.ruleAllowedNote(id);
      reply.setStatus(`⚙ ${request.summary}${ruleNote}`);
      statusShown = true;
    });
  };
  const onQuestion = (request: ElicitationRequest) => {
    void askQuestion(ctx, request);
  };
  let saveError: Error | undefined;
  const onSaveError = (err: Error) => {
    saveError ??= err;
  };
  const unlisten = listen(session, {
    text_delta: onDelta,
    tool_start: onToolStart,
    tool_progress: onToolProgress,
    tool_end: onToolEnd,
    progress_note: onProgress,
    error: onError,
    notice: onNotice,
    permission_request: onPermission,
    elicitation_request: onQuestion,
    save_error: onSaveError,
  });
  outbox.startTyping(ctx.chat);
  const budget = ctx.budgets
    ? new BudgetTurn({
        budgets: ctx.budgets,
        waitMs: ctx.approvalTimeoutMs,
        chat: ctx.chat,
        requester: turn.requester,
        session,
        prices: ctx.sessions.prices,
        outbox,
        logger,
        checkpoint: () => reply.checkpoint(),
      })
    : undefined;
  let result: TurnResult | undefined;
  try {
    // Stopped while the session was loading or the turn was being recorded: nothing to run.
    if (turn.stopNote !== undefined)
      throw new SwitchboardError('ABORTED', 'Stopped before the reply started.');
    const run = {
      // Files the agent sends go out after the text before them, through the outbox.
      sendFile: chatFileSender({ chat: ctx.chat, outbox, reply, logger, isCurrent: ctx.isCurrent }),
      ...(ctx.scheduler ? { schedules: chatSchedules(ctx.scheduler, ctx.chat, item) } : {}),
      ...(budget ? { beforeRequest: budget.gate } : {}),
    };
    const { completed } = item.resume
      ? await session.resumePausedTurn(item.resume, run)
      : await session.submit(
          {
            text: item.text,
            author: item.requester.name,
            ...(item.files.length ? { files: item.files } : {}),
          },
          run,
        );
    result = await completed;
  } catch (err) {
    failure ??= err instanceof Error ? err : new Error(String(err));
  } finally {
    unlisten();
  }
  // Before the final text: no typing after the reply, no prompt left with live buttons.
  outbox.stopTyping(ctx.chat);
  approvals.closeTurn(turn.turnId);
  const stopped = turn.stopNote !== undefined || result?.state === 'interrupted';
  try {
    await reply.finish(stopped ? { note: turn.stopNote ?? say.stoppedNote } : undefined);
  } catch (err) {
    logger.error({ chat: ctx.chat, err: describeError(err) }, 'reply could not be delivered');
  }
  const aborted = stopped && (failure === undefined || isErrorCode(failure, 'ABORTED'));
  if (failure && !aborted) {
    logger.warn({ chat: ctx.chat, turn: turn.turnId, err: describeError(failure) }, 'turn failed');
    ctx.tell(say.turnError(describeError(failure)));
  }
  reportSave(ctx, saveError, result !== undefined);
  if (budget) {
    await budget.finish().then(
      (lines) => lines.forEach(ctx.tell),
      (err: unknown) =>
        logger.error({ chat: ctx.chat, err: describeError(err) }, 'could not record the spend'),
    );
  }
  if (outbox.capabilities(ctx.chat).replyFooter) {
    const cost = ledgerCost(session.getUsage(), ctx.sessions.prices);
    const priced = cost.unpriced.length === 0 ? formatUsd(cost.usd) : undefined;
    ctx.tell(say.replyFooter(session.getContextState(), priced));
  }
  logger.info(
    {
      chat: ctx.chat,
      turn: turn.turnId,
      state: result?.state ?? 'failed',
      ...(result ? { usage: result.usage } : {}),
    },
    'turn ended',
  );
  const outcome: TurnOutcome = failure && !aborted ? 'error' : stopped ? 'interrupted' : 'complete';
  return { outcome, ...(result ? { usage: result.usage, response: result.response } : {}) };
}

/** Says a chat's first failed save, and its first good one after. A turn that never ran saved nothing. */
function reportSave(ctx: TurnContext, error: Error | undefined, completed: boolean): void {
  const health = ctx.saveHealth;
  if (!health) return;
  const line = error
    ? health.failed(ctx.chat, error, ctx.clock.now())
    : completed
      ? health.saved(ctx.chat)
      : undefined;
  if (line) ctx.tell(line);
}

/** Listeners by session event. */
type SessionListeners = { [K in keyof SessionEvents]?: (...args: SessionEvents[K]) => void };

/** Adds the listeners to the session; returns the function that removes them all. */
function listen(session: InteractiveSession, listeners: SessionListeners): () => void {
  const entries = Object.entries(listeners) as [keyof SessionEvents, never][];
  for (const [event, listener] of entries) session.on(event, listener);
  return () => {
    for (const [event, listener] of entries) session.off(event, listener);
  };
}

/**
 * Makes the text so far permanent, so a prompt shows under it; false when
 * the turn was stopped meanwhile. Nobody is thinking while a person is
 * asked: the typing indicator stops.
 */
async function beforeAsking(ctx: TurnContext): Promise<boolean> {
  try {
    await ctx.reply.checkpoint();
  } catch (err) {
    ctx.logger.warn({ chat: ctx.chat, err: describeError(err) }, 'checkpoint before a prompt failed');
  }
  if (!ctx.isCurrent() || ctx.turn.stopNote !== undefined) return false;
  ctx.outbox.stopTyping(ctx.chat);
  return true;
}

/** Posts a tool's question under the text so far; its answer goes back to the tool. */
async function askQuestion(ctx: TurnContext, request: ElicitationRequest): Promise<void> {
  if (!(await beforeAsking(ctx))) {
    request.answer({ action: 'cancel' });
    return;
  }
  ctx.approvals.ask({
    chat: ctx.chat,
    turnId: ctx.turn.turnId,
    requester: ctx.turn.requester,
    request: {
      ...request,
      answer: (answer) => {
        const accepted = request.answer(answer);
        if (accepted && ctx.isCurrent()) ctx.outbox.startTyping(ctx.chat);
        return accepted;
      },
    },
  });
}

/**
 * Allows the call at once when a stored rule covers it (`byRule` is told the
 * rule); otherwise posts the approval prompt under the text so far.
 */
async function ask(
  ctx: TurnContext,
  request: PendingPermission,
  byRule: (id: string) => void,
): Promise<void> {
  const { session, turn, outbox, approvals, logger } = ctx;
  const rule = await ctx.rules?.match(ctx.chat, request).catch((err: unknown) => {
    logger.warn({ chat: ctx.chat, err: describeError(err) }, 'could not read the stored rules; asking');
    return undefined;
  });
  if (rule && request.answer('allow')) {
    logger.info({ chat: ctx.chat, tool: request.toolName, rule: rule.id }, 'tool allowed by a stored rule');
    byRule(rule.id);
    return;
  }
  if (!(await beforeAsking(ctx))) {
    request.answer('deny');
    return;
  }
  approvals.open({
    chat: ctx.chat,
    turnId: turn.turnId,
    request,
    requester: turn.requester,
    // Stored before the prompt shows: a press after a restart, or on another replica, resumes the turn.
    hold: () => session.notePausedTurn({ approval: request.id, chat: ctx.chat, requester: turn.requester }),
    shown: (messageIds) => void session.notePausedTurn({ messageIds }),
    suspend: () => session.suspend(),
    resumed: () => {
      if (ctx.isCurrent()) outbox.startTyping(ctx.chat);
    },
    onAnswered: (answer, by) => {
      const { rules } = ctx;
      if (answer !== 'allow-session' || !rules || request.scope === undefined) return;
      rules.noteGrant(session.getSession().getSessionId(), request.scope, by.name).catch((err: unknown) => {
        logger.warn({ chat: ctx.chat, err: describeError(err) }, 'could not note who made a session grant');
      });
    },
  });
}

/** The Schedule tool's way into the bot's schedules: made in this chat, as the person the turn answers. */
function chatSchedules(scheduler: Scheduler, chat: string, item: QueuedMessage): ChatSchedules {
  return {
    async create(when, prompt) {
      const maker = { chat, maker: item.requester.key, makerName: item.requester.name, owner: item.owner };
      return scheduler.confirmation(await scheduler.create(maker, `${when} ${prompt}`));
    },
  };
}
