/**
 * Chat keys for Telegram: `telegram:<chatId>` for a private chat or a group,
 * `telegram:<chatId>:<message_thread_id>` for a forum topic. Only this
 * adapter builds or reads them.
 */
import { SwitchboardError } from '../../src/errors.js';

/** The parts of a Telegram chat key. */
export interface TelegramChat {
  chatId: number;
  threadId?: number;
}

/** Builds the chat key for a chat (and topic). */
export function chatKey(chatId: number, threadId?: number): string {
  return threadId === undefined ? `telegram:${chatId}` : `telegram:${chatId}:${threadId}`;
}

/** Reads a chat key built by {@link chatKey}; throws NOT_FOUND for anything else. */
export function parseChatKey(key: string): TelegramChat {
  const match = /^telegram:(-?\d+)(?::(\d+))?$/.exec(key);
  if (!match) {
    throw new SwitchboardError(
      'NOT_FOUND',
      `"${key}" is not a Telegram chat key (expected telegram:<chatId>[:<topicId>])`,
    );
  }
  const chatId = Number(match[1]);
  return match[2] === undefined ? { chatId } : { chatId, threadId: Number(match[2]) };
}

/** Private chats have positive ids; groups and channels negative ones. */
export function isPrivateChat(chat: TelegramChat): boolean {
  return chat.chatId > 0;
}
