/**
 * Chat keys for Teams. A Bot Connector conversation id already says where a
 * reply goes: a personal chat (`a:1x2y...`), a group chat
 * (`19:...@thread.v2`) or one channel thread, whose id carries its root post
 * (`19:...@thread.tacv2;messageid=1700000000000`). So the key is
 * `teams:<conversation id>` and nothing else: posting to that id answers in
 * the same thread, and the key survives a restart without a lookup. The one
 * thing the id does not hold, the regional serviceUrl to post to, is kept
 * beside it (`service-urls.ts`).
 */

/** The platform prefix of every Teams chat key and allowlist entry. */
export const PLATFORM = 'teams';

/** What kind of conversation a key names. */
export type ChatKind = 'personal' | 'group' | 'channel';

/** `a:1x...` -> `teams:a:1x...`. */
export function chatKey(conversationId: string): string {
  return `${PLATFORM}:${conversationId}`;
}

/** The conversation id inside a Teams chat key; throws for another platform's key. */
export function conversationOf(chat: string): string {
  if (!chat.startsWith(`${PLATFORM}:`) || chat.length <= PLATFORM.length + 1)
    throw new TypeError(`"${chat}" is not a Teams chat key (teams:<conversation id>)`);
  return chat.slice(PLATFORM.length + 1);
}

/**
 * The kind of a conversation, from its id alone (so it needs no state): a
 * channel thread's id names its root post (`;messageid=`), a group chat's
 * is a `@thread` id without one, and everything else is a personal chat.
 * `conversationType`, when the activity gave it, wins.
 */
export function chatKind(conversationId: string, conversationType?: string): ChatKind {
  if (conversationType === 'personal' || conversationType === 'groupChat') {
    return conversationType === 'personal' ? 'personal' : 'group';
  }
  if (conversationType === 'channel' || /;messageid=/i.test(conversationId)) return 'channel';
  return /@thread\./i.test(conversationId) ? 'group' : 'personal';
}

/**
 * The thread key for a channel post: Teams gives the root post's activity id
 * to address its reply chain. A key that already names a thread is kept.
 */
export function threadConversation(conversationId: string, rootMessageId: string): string {
  return /;messageid=/i.test(conversationId)
    ? conversationId
    : `${conversationId};messageid=${rootMessageId}`;
}
