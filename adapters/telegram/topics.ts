/**
 * Opens a forum topic for work that reports back later (`/bg`): Telegram's
 * threads are forum topics, created with createForumTopic
 * (https://core.telegram.org/bots/api#createforumtopic). Private chats and
 * groups without topics have none, and a bot without the can_manage_topics
 * right cannot open one; the core then runs the work in the chat itself.
 */
import { type Api, GrammyError } from 'grammy';
import type { OpenedThread, OutboundMessage, SentMessage } from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import type { Logger } from '../../src/logger.js';
import { chatKey, isPrivateChat, parseChatKey } from './chat-key.js';

/**
 * "Topic name, 1-128 characters" (Bot API, createForumTopic); MTProto's page
 * says 128 UTF-8 bytes (https://core.telegram.org/method/channels.createForumTopic),
 * so names are cut to fit both readings.
 */
export const TOPIC_NAME_MAX_BYTES = 128;

/** Supergroup ids in the Bot API are the MTProto channel id behind `-100`. */
const SUPERGROUP_PREFIX = '-100';

/** What opening a topic needs from the adapter. */
export interface TopicOpenerDeps {
  api: Api;
  send: (chat: string, message: OutboundMessage) => Promise<SentMessage>;
  logger: Logger;
}

/**
 * The topic's name: the text's first line, cut to 128 UTF-8 bytes (which is
 * also at most 128 characters) between code points, so an emoji is never split.
 */
export function topicName(text: string): string {
  const first = text.trim().split('\n')[0]?.trim() || 'Background';
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
  if (bytes(first) <= TOPIC_NAME_MAX_BYTES) return first;
  let cut = '';
  for (const ch of first) {
    if (bytes(`${cut}${ch}…`) > TOPIC_NAME_MAX_BYTES) break;
    cut += ch;
  }
  return `${cut}…`;
}

/**
 * The link to a topic of a supergroup: `t.me/c/<channel>/<topic>`, where
 * `<channel>` is the MTProto id (the Bot API id without `-100`) and the
 * topic's id is that of the message that opened it
 * (https://core.telegram.org/api/links#message-links). It opens for members
 * only, which everyone who sees the line is. Undefined for other chat ids.
 */
export function topicUrl(chatId: number, threadId: number): string | undefined {
  const id = String(chatId);
  if (!id.startsWith(SUPERGROUP_PREFIX)) return undefined;
  return `https://t.me/c/${id.slice(SUPERGROUP_PREFIX.length)}/${threadId}`;
}

/** Opens Telegram forum topics beside a chat; remembers the groups that have none. */
export class TopicOpener {
  readonly #d: TopicOpenerDeps;
  /** Groups that answered "not a forum": not asked again until a restart. */
  readonly #notForums = new Set<number>();

  constructor(deps: TopicOpenerDeps) {
    this.#d = deps;
  }

  /**
   * Opens a topic named after `text` in the forum of `chat`, posts `text` in
   * it and answers its chat key and link; undefined where Telegram has no
   * topic to open (a private chat, a group without topics, missing rights).
   */
  async open(chat: string, text: string): Promise<OpenedThread | undefined> {
    const parsed = parseChatKey(chat);
    if (isPrivateChat(parsed) || this.#notForums.has(parsed.chatId)) return undefined;
    let threadId: number;
    try {
      const topic = await this.#d.api.createForumTopic(parsed.chatId, topicName(text));
      threadId = topic.message_thread_id;
    } catch (err) {
      if (!(err instanceof GrammyError) || err.error_code !== 400) throw err;
      if (/not a forum/i.test(err.description)) {
        // A group's forum mode rarely changes; the next /bg there skips the call.
        this.#notForums.add(parsed.chatId);
        this.#d.logger.debug({ chat }, 'the group has no topics; background work reports in the chat');
      } else {
        this.#d.logger.warn(
          { chat, err: err.description },
          'could not open a forum topic (the bot needs the "Manage topics" admin right); background work reports in the chat',
        );
      }
      return undefined;
    }
    const topic = chatKey(parsed.chatId, threadId);
    const sent = await this.#d.send(topic, { text, format: plain });
    const url = topicUrl(parsed.chatId, threadId);
    return { chat: topic, messageId: sent.messageId, ...(url ? { url } : {}) };
  }
}
