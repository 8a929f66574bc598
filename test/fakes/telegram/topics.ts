/**
 * createForumTopic as the Bot API defines it
 * (https://core.telegram.org/bots/api#createforumtopic): a topic in a forum
 * supergroup, named 1-128 characters, with an icon color from a fixed set;
 * the bot must be an administrator with the can_manage_topics right. The
 * result is a ForumTopic {message_thread_id, name, icon_color}
 * (https://core.telegram.org/bots/api#forumtopic).
 *
 * Paired with a recorded exchange someone else wrote: tgbot 0.47.0
 * (github.com/tg-rs/tgbot), tests/data/create-forum-topic-base.json, whose
 * answer is `{"message_thread_id":1,"name":"topic-name","icon_color":16749490}`
 * for a request without icon_color: Telegram picks a color from the set.
 */
import { bad, chatIdOf, type Handler, optNum } from './validate.js';

/** The icon colors createForumTopic accepts (Bot API, createForumTopic). */
export const TOPIC_ICON_COLORS = [0x6fb9f0, 0xffd67e, 0xcb86db, 0x8eee98, 0xff93b2, 0xfb6f5f] as const;

/** The fake's forum topic methods. */
export const TOPIC_METHODS: Record<string, Handler> = {
  createForumTopic: (p, ctx) => {
    const chatId = chatIdOf(p);
    const forum = ctx.state.forums.get(chatId);
    // Telegram's answers for a chat without topics and for a bot without the right.
    if (!forum) throw bad('the chat is not a forum');
    if (!forum.canManageTopics) throw bad('not enough rights to create a topic');
    const name = p.name;
    // TOPIC_TITLE_EMPTY: https://core.telegram.org/method/channels.createForumTopic (possible errors).
    if (typeof name !== 'string' || name.length === 0) throw bad('TOPIC_TITLE_EMPTY');
    // "Topic name, 1-128 characters" (Bot API, createForumTopic); the wording
    // of the over-long answer is not documented, so this one is our own.
    if ([...name].length > 128) throw bad('TOPIC_TITLE_TOO_LONG');
    const color = optNum(p, 'icon_color');
    if (color !== undefined && !(TOPIC_ICON_COLORS as readonly number[]).includes(color))
      throw bad('TOPIC_ICON_COLOR_INVALID');
    const iconColor =
      color ?? (TOPIC_ICON_COLORS[ctx.state.topics.size % TOPIC_ICON_COLORS.length] as number);
    // A topic's id is the id of the service message that opened it.
    const threadId = ctx.state.nextMessageId(chatId);
    ctx.state.topics.set(`${chatId}/${threadId}`, { name, iconColor });
    return { message_thread_id: threadId, name, icon_color: iconColor };
  },
};
