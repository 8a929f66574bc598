/**
 * Telegram updates as the core's events. A private chat is one chat key; a
 * forum topic its own key. In groups only messages meant for the bot count:
 * a mention (@username or a text mention), a reply to the bot, or a command
 * (`/cmd@otherbot` belongs to another bot and is ignored). The mention is
 * removed from the text the agent sees.
 */
import type { Message, MessageEntity, Update, UserFromGetMe } from 'grammy/types';
import {
  type Attachment,
  type ChatEvent,
  type ChatUser,
  COMMAND_CATALOGUE,
  type Responder,
} from '../../src/bot/adapter-contract.js';
import { chatKey } from './chat-key.js';

/** A translated update; `fileId` asks the caller to download the photo, document or audio into its attachment. */
export interface Translated {
  event: ChatEvent;
  fileId?: string;
  /** For callback queries: answer it even when the core fails. */
  callbackQueryId?: string;
}

/** Telegram's start command opens every private chat; the core knows it as help. */
const COMMAND_ALIASES: Record<string, string> = { start: 'help' };

/** The command words this bot answers (after aliases). */
const OUR_COMMANDS = new Set(COMMAND_CATALOGUE.map((c) => c.name));

/**
 * Whether a command is for this bot. In a private chat every command is (an
 * unknown one deserves "Unknown command"); in a group a bare `/report` is
 * most likely another bot's, so only our own words or `/word@thisbot` count.
 */
export function commandIsOurs(
  command: { name: string; target?: string },
  isPrivate: boolean,
  me: UserFromGetMe,
): boolean {
  if (command.target) return command.target.toLowerCase() === me.username.toLowerCase();
  return isPrivate || OUR_COMMANDS.has(command.name);
}

/** Who a forwarded message came from, as Telegram's `forward_origin` names them. */
export function forwardedFrom(message: Message): string | undefined {
  const origin = message.forward_origin;
  if (!origin) return undefined;
  switch (origin.type) {
    case 'user':
      return chatUser(origin.sender_user).name;
    case 'hidden_user':
      return origin.sender_user_name;
    case 'chat':
      return origin.sender_chat.title ?? 'a chat';
    case 'channel':
      return origin.chat.title ?? 'a channel';
    default:
      return 'someone';
  }
}

/** The chat key of a message: the topic counts only in forum topics. */
export function messageChatKey(
  message: Pick<Message, 'chat' | 'message_thread_id' | 'is_topic_message'>,
): string {
  const inTopic = message.is_topic_message === true && message.message_thread_id !== undefined;
  return chatKey(message.chat.id, inTopic ? message.message_thread_id : undefined);
}

/** A person as the core sees them; the display name goes to the model. */
export function chatUser(user: {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}): ChatUser {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim();
  return { id: String(user.id), name: name || user.username || String(user.id) };
}

interface Addressing {
  addressed: boolean;
  text: string;
}

/** Finds and removes mentions of the bot; says whether the message is for it. */
export function addressing(
  text: string,
  entities: readonly MessageEntity[] | undefined,
  me: UserFromGetMe,
): Addressing {
  const handle = `@${me.username}`.toLowerCase();
  const spans: [number, number][] = [];
  for (const e of entities ?? []) {
    const slice = text.slice(e.offset, e.offset + e.length);
    if (
      (e.type === 'mention' && slice.toLowerCase() === handle) ||
      (e.type === 'text_mention' && e.user.id === me.id)
    ) {
      spans.push([e.offset, e.offset + e.length]);
    }
  }
  if (spans.length === 0) {
    // Entities may be missing (forwarded text, some clients): fall back to the plain handle.
    const re = new RegExp(`(^|[^\\w@])(@${me.username})(?![\\w])`, 'gi');
    for (const m of text.matchAll(re)) {
      const start = (m.index ?? 0) + (m[1]?.length ?? 0);
      spans.push([start, start + (m[2]?.length ?? 0)]);
    }
  }
  if (spans.length === 0) return { addressed: false, text };
  let out = '';
  let at = 0;
  for (const [start, end] of spans.sort((a, b) => a[0] - b[0])) {
    out += text.slice(at, start);
    at = end;
  }
  out += text.slice(at);
  return {
    addressed: true,
    text: out
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/^[\s,:]+/, '')
      .trim(),
  };
}

/** `/compact@bot keep names` -> {name, args, target}; undefined when not a command. */
export function parseCommand(text: string): { name: string; args: string; target?: string } | undefined {
  const match = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]+))?(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const name = (match[1] as string).toLowerCase();
  return {
    name: COMMAND_ALIASES[name] ?? name,
    args: (match[3] ?? '').trim(),
    ...(match[2] ? { target: match[2] } : {}),
  };
}

/**
 * Attachments of a message, as kinds the core answers for. Photos and
 * documents are downloaded later (`fileId`), voice notes and audio files
 * when the core asks; the rest are answered by kind.
 */
export function attachmentsOf(message: Message): { attachments: Attachment[]; fileId?: string } {
  if (message.photo && message.photo.length > 0) {
    const largest = [...message.photo].sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (!largest) return { attachments: [] };
    const size = largest.file_size === undefined ? {} : { size: largest.file_size };
    return { attachments: [{ kind: 'image', ...size }], fileId: largest.file_id };
  }
  if (message.sticker) return { attachments: [{ kind: 'sticker' }] };
  // Voice notes (Ogg/Opus) and audio files: fetched only when the core will transcribe them,
  // and not at all past its length limit (the Bot API states `duration`).
  const voice = message.voice ?? message.audio;
  if (voice) {
    const audio: Attachment = {
      kind: 'audio',
      durationSeconds: voice.duration,
      ...(voice.mime_type ? { mediaType: voice.mime_type } : {}),
      ...(message.audio?.file_name ? { name: message.audio.file_name } : {}),
      ...(voice.file_size === undefined ? {} : { size: voice.file_size }),
    };
    return { attachments: [audio], fileId: voice.file_id };
  }
  if (message.document) {
    const d = message.document;
    const document: Attachment = {
      kind: 'document',
      ...(d.mime_type ? { mediaType: d.mime_type } : {}),
      ...(d.file_name ? { name: d.file_name } : {}),
      ...(d.file_size === undefined ? {} : { size: d.file_size }),
    };
    return { attachments: [document], fileId: d.file_id };
  }
  if (message.video || message.video_note || message.animation) return { attachments: [{ kind: 'video' }] };
  if (message.location || message.contact || message.poll || message.dice || message.venue) {
    return { attachments: [{ kind: 'other' }] };
  }
  return { attachments: [] };
}

/**
 * The message this one answers, if the user chose one. In forum topics
 * Telegram points every message at the topic's creation message; that is
 * not a reply (and would make a bot-created topic look like a reply to the bot).
 */
function realReply(message: Message): Message | undefined {
  const reply = message.reply_to_message;
  if (!reply || reply.forum_topic_created) return undefined;
  if (message.is_topic_message && reply.message_id === message.message_thread_id) return undefined;
  return reply as Message;
}

function translateMessage(
  update: Update,
  message: Message,
  me: UserFromGetMe,
  edited: boolean,
): Translated | undefined {
  const from = message.from;
  if (!from || from.is_bot) return undefined;
  const isPrivate = message.chat.type === 'private';
  if (!isPrivate && message.chat.type !== 'group' && message.chat.type !== 'supergroup') return undefined;
  const rawText = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities;
  const base = {
    chat: messageChatKey(message),
    user: chatUser(from),
    deliveryId: String(update.update_id),
  };
  const messageId = String(message.message_id);
  const command = message.text !== undefined ? parseCommand(rawText) : undefined;
  if (command) {
    if (!commandIsOurs(command, isPrivate, me)) return undefined;
    if (edited) return undefined;
    return { event: { type: 'command', ...base, name: command.name, args: command.args, messageId } };
  }
  const mention = addressing(rawText, entities, me);
  const reply = realReply(message);
  const repliesToBot = reply?.from?.id === me.id;
  if (!isPrivate && !mention.addressed && !repliesToBot) return undefined;
  if (edited) return { event: { type: 'edit', ...base, text: mention.text, messageId } };
  // A forward reaches the model marked as one, so it is not taken for the person's own words.
  const origin = forwardedFrom(message);
  const text = origin && mention.text ? `(Forwarded from ${origin})\n${mention.text}` : mention.text;
  const { attachments, fileId } = attachmentsOf(message);
  if (mention.text === '' && attachments.length === 0 && message.text === undefined) return undefined;
  return {
    event: {
      type: 'message',
      ...base,
      text,
      messageId,
      ...(reply
        ? {
            replyTo: {
              messageId: String(reply.message_id),
              ...(reply.text ? { text: reply.text } : {}),
              fromBot: reply.from?.id === me.id,
            },
          }
        : {}),
      ...(attachments.length ? { attachments } : {}),
    },
    ...(fileId ? { fileId } : {}),
  };
}

/**
 * Translates one update; undefined for updates the bot does not act on.
 * `respond` builds the responder for a callback query.
 */
export function translateUpdate(
  update: Update,
  me: UserFromGetMe,
  respond: (callbackId: string) => Responder,
): Translated | undefined {
  if (update.message) return translateMessage(update, update.message, me, false);
  if (update.edited_message) return translateMessage(update, update.edited_message, me, true);
  if (update.callback_query) {
    const q = update.callback_query;
    const message = q.message;
    if (!message || q.data === undefined) return undefined;
    return {
      event: {
        type: 'button',
        chat: messageChatKey(message as Message),
        user: chatUser(q.from),
        deliveryId: String(update.update_id),
        payload: q.data,
        messageId: String(message.message_id),
        respond: respond(q.id),
      },
      callbackQueryId: q.id,
    };
  }
  const stopped = update.stopped_message_generation;
  if (stopped) {
    const chat = stopped.chat;
    return {
      event: {
        type: 'stop',
        chat: chatKey(chat.id, stopped.message_thread_id),
        user: chatUser({
          id: chat.id,
          first_name: chat.first_name,
          ...(chat.last_name ? { last_name: chat.last_name } : {}),
        }),
        deliveryId: String(update.update_id),
      },
    };
  }
  return undefined;
}

/**
 * The per-chat ordering key for @grammyjs/runner's sequentialize. Button
 * presses, draft stops and `/stop` get none, so they are handled while that
 * chat's earlier updates are still being accepted.
 */
export function sequenceKey(update: Update): string | undefined {
  if (update.callback_query || update.stopped_message_generation) return undefined;
  const message = update.message ?? update.edited_message;
  if (!message) return undefined;
  if (update.message && /^\/stop(@\w+)?(\s|$)/i.test(message.text ?? '')) return undefined;
  return messageChatKey(message);
}
