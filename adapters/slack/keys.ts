/**
 * Slack chat keys: `slack:<channel>:<thread_ts>`. Every session lives in a
 * thread; a top-level message starts one whose thread_ts is its own ts.
 */
import { SwitchboardError } from '../../src/errors.js';

/** The platform prefix of every Slack chat key. */
export const SLACK_PLATFORM = 'slack';

/** A Slack thread. */
export interface SlackThread {
  channel: string;
  threadTs: string;
}

/** `C123`, `1700000001.000100` -> `slack:C123:1700000001.000100`. */
export function slackChatKey(channel: string, threadTs: string): string {
  return `${SLACK_PLATFORM}:${channel}:${threadTs}`;
}

/** The inverse of {@link slackChatKey}; throws NOT_FOUND for a key this adapter did not build. */
export function parseSlackChatKey(chat: string): SlackThread {
  const [platform, channel, threadTs, ...rest] = chat.split(':');
  if (platform !== SLACK_PLATFORM || !channel || !threadTs || rest.length > 0)
    throw new SwitchboardError(
      'NOT_FOUND',
      `"${chat}" is not a Slack chat key (expected slack:<channel>:<thread_ts>).`,
    );
  return { channel, threadTs };
}

/** DMs with the bot have channel ids starting with D. */
export function isDirectChannel(channel: string): boolean {
  return channel.startsWith('D');
}
