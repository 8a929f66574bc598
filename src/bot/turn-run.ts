/**
 * One queued message run as a turn of its chat: a reached cap answers it
 * and runs nothing; otherwise the chat's session is held, its voice notes
 * heard, the turn recorded in the state store (so a restart, or another
 * replica, knows a reply was cut off), its reply streamed, and the record
 * ended by whoever still owns it. When the chat's lease is lost midway,
 * the turn stops and its chat hears about it exactly once.
 */
import { describeError } from '../errors.js';
import type { InteractiveSession } from '../session/index.js';
import type { BotContext } from './bot-context.js';
import { refuseOverBudget } from './budget-turn.js';
import { stopButtons } from './buttons.js';
import { streamTurn, type TurnParts } from './chat-turn.js';
import type { QueuedMessage, RunningTurn } from './queued-message.js';
import { say } from './text.js';
import { hearVoice } from './voice.js';

/** The bot's parts a turn run uses: those of the turn, the sessions it holds, its record and voice notes. */
export type TurnRunParts = TurnParts | 'registry' | 'stateStore' | 'observer' | 'voice';

/** The chat a turn runs in, as its runtime lends it. */
export interface TurnRunChat {
  chat: string;
  /** False once the chat has moved on from this turn (stopped, ended). */
  isCurrent: () => boolean;
  /** Sends a line to the chat. */
  tell: (text: string) => void;
  /** Stops the turn with this note (empty: another replica already told the chat). */
  stop: (note: string) => void;
}

/**
 * Runs `item` as `turn`; never throws (a failure is said in the chat).
 * `signal` aborts when the chat's lease is lost.
 */
export async function runQueuedTurn(
  bot: Pick<BotContext, TurnRunParts>,
  where: TurnRunChat,
  turn: RunningTurn,
  item: QueuedMessage,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { registry, outbox, stateStore, clock, logger } = bot;
  const { chat } = where;
  let release: (() => void) | undefined;
  let startedAt: string | undefined;
  // Set once the turn's record in the state store is not this turn's to end any more.
  let recordSettled = false;
  const lost = () => {
    recordSettled = true;
    void leaseLost(bot, where, turn, startedAt);
  };
  signal?.addEventListener('abort', lost, { once: true });
  try {
    // A cap reached: the message runs nothing (no session, no model request) and is answered.
    if (bot.budgets && (await refuseOverBudget(bot.budgets, outbox, chat, item))) return;
    const held = await registry.acquire(chat, item.owner);
    const session = held.session;
    release = held.release;
    turn.session = session;
    if (turn.stopNote !== undefined) return;
    const heard = await hear(bot, chat, turn, item, session);
    if (!heard) return;
    const sessionId = session.getSession().getSessionId();
    startedAt = new Date(clock.now()).toISOString();
    await stateStore.beginTurn({ chat, sessionId, startedAt });
    logger.info({ chat, sessionId, turn: turn.turnId }, 'turn started');
    bot.observer?.turnStarted?.(chat);
    const reply = outbox.stream(chat, {
      ...(item.replyable === false ? {} : { replyTo: item.messageId }),
      liveButtons: stopButtons(turn.turnId),
    });
    try {
      const ended = await streamTurn({
        ...bot,
        chat,
        session,
        turn,
        item: heard,
        reply,
        isCurrent: where.isCurrent,
        tell: where.tell,
      });
      const { response: _text, ...finished } = ended;
      bot.observer?.turnFinished?.({ chat, model: session.getModel(), ...finished });
      item.onDone?.(ended);
    } finally {
      if (!recordSettled)
        await stateStore.endTurn(chat).catch((err: unknown) => {
          logger.error({ chat, err: describeError(err) }, 'could not clear the active turn');
        });
    }
  } catch (err) {
    logger.error({ chat, turn: turn.turnId, err: describeError(err) }, 'turn could not run');
    where.tell(say.turnError(describeError(err)));
    item.onDone?.({ outcome: 'error' });
  } finally {
    signal?.removeEventListener('abort', lost);
    release?.();
  }
}

/** The message with its voice notes heard; undefined when nothing is left to run. */
async function hear(
  bot: Pick<BotContext, TurnRunParts>,
  chat: string,
  turn: RunningTurn,
  item: QueuedMessage,
  session: InteractiveSession,
): Promise<QueuedMessage | undefined> {
  const { voice, outbox, logger } = bot;
  if (!voice || !item.audio?.length) return item;
  turn.cancel = new AbortController();
  outbox.startTyping(chat);
  try {
    const signal = turn.cancel.signal;
    return await hearVoice({ chat, item, voice, session, outbox, logger, signal });
  } finally {
    outbox.stopTyping(chat);
  }
}

/**
 * The chat's lease was lost (this replica stalled past its ttl, or lost
 * its database): the turn stops, and its chat hears about it exactly once.
 * Whoever ends the turn's record tells the chat: another replica that
 * already claimed it said the reply was cut off, so this one ends the
 * reply without a note; otherwise this one ends the record and says why.
 */
async function leaseLost(
  bot: Pick<BotContext, TurnRunParts>,
  where: TurnRunChat,
  turn: RunningTurn,
  startedAt: string | undefined,
): Promise<void> {
  const { stateStore, logger } = bot;
  const { chat } = where;
  let ours = false;
  try {
    const record = (await stateStore.activeTurns()).find((t) => t.chat === chat);
    ours = startedAt !== undefined && record?.startedAt === startedAt;
    if (ours) await stateStore.endTurn(chat);
  } catch (err) {
    logger.warn({ chat, err: describeError(err) }, 'could not check who ends the lost turn');
  }
  logger.warn({ chat, turn: turn.turnId, claimedElsewhere: !ours }, 'chat lease lost; turn stopped');
  if (where.isCurrent()) where.stop(ours ? say.leaseLost : '');
}
