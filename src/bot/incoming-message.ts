/**
 * A message written in a chat, on its way to the chat's queue: its files
 * sorted (kept, heard or refused, each refusal answered), a reply's quoted
 * text put before it, the answer to a tool's question taken as such, and
 * the rest handed over by the chat's busy mode while a reply runs.
 */
import { describeError } from '../errors.js';
import type { BusyMode } from '../schedule/types.js';
import type { MessageEvent } from './adapter-contract.js';
import type { Sender } from './admission.js';
import { takeAttachments } from './attachment-intake.js';
import type { BotContext } from './bot-context.js';
import { acceptWhileBusy } from './busy.js';
import type { ChatRuntime } from './chat-runtime.js';
import { MAX_INPUT_CHARS, say } from './text.js';
import { DEFAULT_MAX_AUDIO_SECONDS } from './voice.js';

/** The bot's parts a message goes through. */
export type MessageParts =
  | 'approvals'
  | 'access'
  | 'outbox'
  | 'background'
  | 'logger'
  | 'voice'
  | 'scheduler'
  | 'busy'
  | 'queueLimit';

/** Takes a message into its chat, or answers why it cannot be. */
export async function acceptMessage(
  bot: Pick<BotContext, MessageParts>,
  event: MessageEvent,
  chat: ChatRuntime,
  sender: Sender,
): Promise<void> {
  // Answers about the message (a file left out, too long, a full queue) are sent plain: they may quote a file name.
  const reply = (text: string) =>
    bot.background.track(
      bot.outbox.send(event.chat, text, { plain: true, replyTo: event.messageId }),
      'answer',
    );
  const text = event.text.trim();
  const tooLong = event.text.length > MAX_INPUT_CHARS;
  const hearing = {
    on: bot.voice !== undefined,
    maxSeconds: bot.voice?.maxSeconds ?? DEFAULT_MAX_AUDIO_SECONDS,
    admin: bot.access.isAdmin(sender.key),
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
  if (!files.length && !audio.length && bot.approvals.takeReply(event.chat, user, text, event.messageId))
    return;
  const item = {
    kind: 'message' as const,
    messageId: event.messageId,
    text: withReplyContext(event),
    files,
    ...(audio.length ? { audio } : {}),
    requester: user,
    owner: sender.owner,
  };
  const queued = acceptWhileBusy(chat, item, await busyMode(bot, chat), () => reply(say.steered));
  if (!queued) reply(say.queueFull(bot.queueLimit));
}

/** How the chat takes a message while a reply runs; asked only then. */
async function busyMode(bot: Pick<BotContext, MessageParts>, chat: ChatRuntime): Promise<BusyMode> {
  const { scheduler, busy, logger } = bot;
  if (chat.runningTurnId === undefined) return 'queue';
  if (!scheduler) return busy ?? 'steer';
  return scheduler.busyMode(chat.chat).catch((err: unknown) => {
    logger.warn({ chat: chat.chat, err: describeError(err) }, 'could not read the chat settings; queued');
    return 'queue' as const;
  });
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
