/**
 * What a button press does in this process: Stop stops the chat's running
 * turn, `Allow $X more` extends a budget, `Always allow` and its prefix
 * choice make a rule, and the approval buttons answer a prompt, whether it
 * waits here or is stored in the chat's session by a process before this
 * one (or another replica). Every press is answered exactly once.
 */
import type { ButtonEvent } from './adapter-contract.js';
import type { Sender } from './admission.js';
import type { BotContext } from './bot-context.js';
import { type ButtonPayload, decodeButton } from './buttons.js';
import type { ChatRuntime } from './chat-runtime.js';
import { answerStoredApproval } from './stored-approvals.js';
import { say } from './text.js';

/** The bot's parts a press may act on. */
export type PressParts =
  | 'approvals'
  | 'registry'
  | 'access'
  | 'outbox'
  | 'background'
  | 'clock'
  | 'logger'
  | 'budgets'
  | 'rulePrompts';

/** Acts on a press of one of the bot's buttons in `chat`. */
export async function press(
  bot: Pick<BotContext, PressParts>,
  event: ButtonEvent,
  chat: ChatRuntime,
  sender: Sender,
): Promise<void> {
  const payload = decodeButton(event.payload);
  if (!payload) return event.respond({ text: say.expired, ephemeral: true });
  if (payload.action === 'extend') return extend(bot, event, payload.id, sender);
  if ((payload.action === 'always' || payload.action === 'prefix') && bot.rulePrompts)
    return bot.rulePrompts.press(event, payload, sender.key);
  if (payload.action !== 'stop') return answerApproval(bot, event, payload, chat, sender);
  if (chat.runningTurnId !== payload.id) return event.respond({ text: say.alreadyFinished, ephemeral: true });
  chat.stop();
  return event.respond({ text: say.stopping, ephemeral: true });
}

/** An approval button (or a tool question's): the prompt waiting here, or one stored in the session. */
async function answerApproval(
  bot: Pick<BotContext, PressParts>,
  event: ButtonEvent,
  payload: ButtonPayload,
  chat: ChatRuntime,
  sender: Sender,
): Promise<void> {
  const { approvals } = bot;
  // A prompt nobody waits for any more (its turn was cut off) must not keep buttons that do nothing.
  const forgotten = !approvals.has(payload.id) && !approvals.settledHere(payload.id);
  // Posted by a process before this one (or another replica): the wait is stored in the chat's session.
  if (forgotten && (await answerStored(bot, event, payload, chat, sender))) return;
  await approvals.press(event, payload, sender.key);
  if (forgotten && event.messageId !== undefined) {
    const edit = bot.outbox.edit(event.chat, event.messageId, say.approvalExpired, { buttons: [] });
    bot.background.track(edit, 'expired prompt edit');
  }
}

/** Answers a press on a prompt whose turn is stored as waiting; false when none is. */
async function answerStored(
  bot: Pick<BotContext, PressParts>,
  event: ButtonEvent,
  payload: ButtonPayload,
  chat: ChatRuntime,
  sender: Sender,
): Promise<boolean> {
  if (chat.busy) return false;
  const session = await bot.registry.existing(event.chat);
  const taken = await answerStoredApproval(bot, session, event, payload, sender.key);
  if (taken === undefined) return false;
  if (taken !== 'answered' && !chat.enqueue(taken)) {
    bot.logger.warn({ chat: event.chat }, 'the answered turn could not be queued');
  }
  return true;
}

/** `Allow $X more` on a budget notice: an admin extends the cap; the notice shows who did. */
async function extend(
  bot: Pick<BotContext, PressParts>,
  event: ButtonEvent,
  id: string,
  sender: Sender,
): Promise<void> {
  const { answer, edited } = bot.budgets
    ? await bot.budgets.extend(id, sender.key, event.user.name)
    : { answer: say.expired, edited: undefined };
  if (edited !== undefined && event.messageId !== undefined) {
    const edit = bot.outbox.edit(event.chat, event.messageId, edited, { buttons: [] });
    bot.background.track(edit, 'budget notice edit');
  }
  await event.respond({ text: answer, ephemeral: true });
}
