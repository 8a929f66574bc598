/**
 * Builders for inbound updates as Telegram would send them: text messages in
 * private chats, groups and forum topics (with mention and bot_command
 * entities computed), edits, callback queries, photos and draft stops.
 */
import type { Message, MessageEntity, Update, User } from 'grammy/types';

/** Who is talking and where. */
export interface Where {
  chatId: number;
  user: { id: number; first_name?: string; username?: string };
  /** Forum topic id (the chat is then a forum supergroup). */
  threadId?: number;
}

let messageSeq = 1000;

/** A fresh message id for inbound messages. */
export function nextInboundId(): number {
  return ++messageSeq;
}

function from(w: Where): User {
  return {
    id: w.user.id,
    is_bot: false,
    first_name: w.user.first_name ?? `User${w.user.id}`,
    ...(w.user.username ? { username: w.user.username } : {}),
  };
}

function chat(w: Where) {
  if (w.chatId > 0)
    return { id: w.chatId, type: 'private' as const, first_name: w.user.first_name ?? `User${w.user.id}` };
  return {
    id: w.chatId,
    type: 'supergroup' as const,
    title: 'Team',
    ...(w.threadId === undefined ? {} : { is_forum: true as const }),
  };
}

/** Entities Telegram detects: a leading bot command and @mentions. */
export function detectEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
  if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  for (const m of text.matchAll(/(^|\s)(@[A-Za-z0-9_]{5,32})/g)) {
    entities.push({
      type: 'mention',
      offset: (m.index ?? 0) + (m[1]?.length ?? 0),
      length: m[2]?.length ?? 0,
    });
  }
  return entities;
}

/** A message object (for `message` or `edited_message`). */
export function textMessage(
  w: Where,
  text: string,
  extra: { messageId?: number; replyTo?: Message; entities?: MessageEntity[] } = {},
): Message {
  const entities = extra.entities ?? detectEntities(text);
  return {
    message_id: extra.messageId ?? nextInboundId(),
    date: Math.floor(Date.now() / 1000),
    chat: chat(w),
    from: from(w),
    text,
    ...(entities.length ? { entities } : {}),
    ...(w.threadId === undefined ? {} : { message_thread_id: w.threadId, is_topic_message: true }),
    ...(extra.replyTo ? { reply_to_message: extra.replyTo } : {}),
  } as Message;
}

/** `{ message }` update. */
export function messageUpdate(
  w: Where,
  text: string,
  extra: Parameters<typeof textMessage>[2] = {},
): Omit<Update, 'update_id'> {
  return { message: textMessage(w, text, extra) } as Omit<Update, 'update_id'>;
}

/** `{ edited_message }` update for an earlier message id. */
export function editUpdate(w: Where, messageId: number, text: string): Omit<Update, 'update_id'> {
  const message = { ...textMessage(w, text, { messageId }), edit_date: Math.floor(Date.now() / 1000) };
  return { edited_message: message } as Omit<Update, 'update_id'>;
}

let callbackSeq = 0;

/** A button press on a bot message. */
export function callbackUpdate(w: Where, messageId: number, data: string): Omit<Update, 'update_id'> {
  return {
    callback_query: {
      id: `cb${++callbackSeq}`,
      from: from(w),
      chat_instance: `ci${w.chatId}`,
      data,
      message: {
        message_id: messageId,
        date: Math.floor(Date.now() / 1000),
        chat: chat(w),
        text: 'prompt',
        ...(w.threadId === undefined ? {} : { message_thread_id: w.threadId, is_topic_message: true }),
      },
    },
  } as Omit<Update, 'update_id'>;
}

/** Telegram's own draft stop button was pressed. */
export function stopGenerationUpdate(w: Where, draftId: number): Omit<Update, 'update_id'> {
  return {
    stopped_message_generation: {
      chat: chat(w),
      draft_id: draftId,
      ...(w.threadId === undefined ? {} : { message_thread_id: w.threadId }),
    },
  } as Omit<Update, 'update_id'>;
}

/** A new message from `w`'s person in `w`'s chat, carrying `fields` (its media, its caption). */
function incoming(w: Where, fields: Record<string, unknown>): Omit<Update, 'update_id'> {
  return {
    message: {
      message_id: nextInboundId(),
      date: Math.floor(Date.now() / 1000),
      chat: chat(w),
      from: from(w),
      ...fields,
    },
  } as Omit<Update, 'update_id'>;
}

/** A photo message; `fileId` from `fake.addFile`. */
export function photoUpdate(w: Where, fileId: string, caption?: string): Omit<Update, 'update_id'> {
  return incoming(w, {
    photo: [
      { file_id: `${fileId}-small`, file_unique_id: 's', width: 90, height: 90, file_size: 100 },
      { file_id: fileId, file_unique_id: 'l', width: 800, height: 800, file_size: 5000 },
    ],
    ...(caption ? { caption } : {}),
  });
}

/**
 * A document message; `fileId` from `fake.addFile`. `size` is the update's
 * `file_size` (optional in the Bot API's Document: left out when undefined).
 */
export function documentUpdate(
  w: Where,
  fileId: string,
  document: { name: string; mimeType?: string; size?: number; caption?: string },
): Omit<Update, 'update_id'> {
  return incoming(w, {
    document: {
      file_id: fileId,
      file_unique_id: `u${fileId}`,
      file_name: document.name,
      ...(document.mimeType ? { mime_type: document.mimeType } : {}),
      ...(document.size === undefined ? {} : { file_size: document.size }),
    },
    ...(document.caption ? { caption: document.caption } : {}),
  });
}

/**
 * A voice note (the Bot API's Voice: Ogg/Opus, `duration` in seconds, no
 * file name), or with `audio` an audio file (Audio: `file_name`, `duration`);
 * `fileId` from `fake.addFile`.
 */
export function voiceUpdate(
  w: Where,
  fileId: string,
  voice: { duration: number; size?: number; caption?: string; audio?: { name: string; mimeType: string } },
): Omit<Update, 'update_id'> {
  const file = {
    file_id: fileId,
    file_unique_id: `u${fileId}`,
    duration: voice.duration,
    ...(voice.size === undefined ? {} : { file_size: voice.size }),
  };
  const media = voice.audio
    ? { audio: { ...file, file_name: voice.audio.name, mime_type: voice.audio.mimeType } }
    : { voice: { ...file, mime_type: 'audio/ogg' } };
  return incoming(w, { ...media, ...(voice.caption ? { caption: voice.caption } : {}) });
}

/** Other media: sticker, voice, document, video. */
export function mediaUpdate(
  w: Where,
  kind: 'sticker' | 'voice' | 'document' | 'video',
): Omit<Update, 'update_id'> {
  const file = { file_id: `${kind}1`, file_unique_id: `${kind}u` };
  const media = {
    sticker: {
      sticker: {
        ...file,
        type: 'regular',
        width: 512,
        height: 512,
        is_animated: false,
        is_video: false,
        emoji: '👍',
      },
    },
    voice: { voice: { ...file, duration: 3, mime_type: 'audio/ogg' } },
    document: { document: { ...file, file_name: 'report.pdf', mime_type: 'application/pdf' } },
    video: { video: { ...file, width: 640, height: 480, duration: 5, mime_type: 'video/mp4' } },
  }[kind];
  return incoming(w, media);
}
