/**
 * Discord chat keys. A session lives in a thread (`discord:<threadId>`) or a
 * DM channel (`discord:dm:<channelId>`); both are channels to the REST API,
 * so a key always resolves to the one channel id that messages go to.
 */
import { SwitchboardError } from '../../src/errors.js';

/** The platform prefix of every Discord chat key. */
export const PLATFORM = 'discord';

/** A parsed chat key. */
export interface DiscordChat {
  kind: 'thread' | 'dm';
  channelId: string;
}

/** The chat key of a thread the bot answers in. */
export function threadKey(threadId: string): string {
  return `${PLATFORM}:${threadId}`;
}

/** The chat key of a DM channel (the whole DM is one session). */
export function dmKey(channelId: string): string {
  return `${PLATFORM}:dm:${channelId}`;
}

const SNOWFLAKE = /^\d{1,25}$/;

/** Parses a key built by {@link threadKey} or {@link dmKey}; throws NOT_FOUND for anything else. */
export function parseChatKey(chat: string): DiscordChat {
  const parts = chat.split(':');
  if (parts[0] === PLATFORM) {
    if (parts.length === 2 && SNOWFLAKE.test(parts[1]!)) return { kind: 'thread', channelId: parts[1]! };
    if (parts.length === 3 && parts[1] === 'dm' && SNOWFLAKE.test(parts[2]!)) {
      return { kind: 'dm', channelId: parts[2]! };
    }
  }
  throw new SwitchboardError(
    'NOT_FOUND',
    `"${chat}" is not a Discord chat key (discord:<threadId> or discord:dm:<channelId>).`,
  );
}
