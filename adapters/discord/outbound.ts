/**
 * Render operations as REST calls through discord.js's REST client. A rate
 * limit rejects the call at once (rate-limits.ts): the core's scheduler gets
 * RATE_LIMITED with the wait and waits it out itself. Calls go straight to
 * the channel routes, so a thread that is not in the cache (after a restart)
 * needs no extra fetch. Each call has a deadline (src/call-deadline.ts):
 * discord.js times out each attempt and retries it, so without one a call
 * could keep its message waiting for minutes.
 */
import { escapeMarkdown, type REST, Routes } from 'discord.js';
import type { MentionPolicy, OutboundMessage, SentMessage } from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import { type DeadlineOptions, withDeadline } from '../../src/call-deadline.js';
import { toActionRows } from './buttons.js';
import { MAX_MESSAGE_LENGTH } from './capabilities.js';
import { parseChatKey } from './chat-key.js';
import { toSwitchboardError } from './errors.js';
import { reportingRateLimits } from './rate-limits.js';

/** Discord refuses empty content; a zero-width space keeps a button-only or emptied message valid. */
const EMPTY = '\u200b';

/**
 * Discord's own lock on pings, matching what the text may hold: `allowed_mentions`
 * parses nothing unless the policy allows users, or also roles and @everyone/@here.
 * https://discord.com/developers/docs/resources/message#allowed-mentions-object
 */
export function allowedMentions(policy: MentionPolicy): { parse: ('users' | 'roles' | 'everyone')[] } {
  if (policy === 'all') return { parse: ['users', 'roles', 'everyone'] };
  return { parse: policy === 'users' ? ['users'] : [] };
}

/** The JSON body of a create or edit. */
export function messageBody(
  message: OutboundMessage,
  editing: boolean,
  mentions: MentionPolicy = 'none',
): Record<string, unknown> {
  let content = message.text;
  if (message.format === plain) {
    // Plain text must not render as Markdown; escape it when the escaped text still fits.
    const escaped = escapeMarkdown(content);
    if ([...escaped].length <= MAX_MESSAGE_LENGTH) content = escaped;
  }
  const body: Record<string, unknown> = {
    content: content.length > 0 ? content : EMPTY,
    // The agent's text pings nobody unless SWITCHBOARD_ALLOW_MENTIONS says so.
    allowed_mentions: allowedMentions(mentions),
  };
  if (message.buttons !== undefined) body.components = toActionRows(message.buttons);
  else if (!editing) body.components = [];
  return body;
}

/** Sends, edits and deletes messages and shows typing in Discord chats. */
export class DiscordOutbound {
  constructor(
    private readonly rest: () => REST,
    private readonly deadline: Omit<DeadlineOptions, 'what'>,
    private readonly mentions: MentionPolicy = 'none',
  ) {}

  /** Runs one REST call within the deadline (the signal stops discord.js from sending it later), mapping errors. */
  async #call<T>(what: string, run: (rest: REST, signal: AbortSignal) => Promise<unknown>): Promise<T> {
    try {
      const rest = this.rest();
      return (await withDeadline((signal) => reportingRateLimits(() => run(rest, signal)), {
        ...this.deadline,
        what: `Discord ${what}`,
      })) as T;
    } catch (err) {
      throw toSwitchboardError(err, what);
    }
  }

  async send(chat: string, message: OutboundMessage): Promise<SentMessage> {
    const { channelId } = parseChatKey(chat);
    const body = messageBody(message, false, this.mentions);
    // A thread started from a message has that message's id; the starter lives in the parent channel,
    // and Discord refuses a reply across channels, so it is not referenced.
    if (message.replyTo && message.replyTo !== channelId) {
      body.message_reference = { message_id: message.replyTo, fail_if_not_exists: false };
    }
    const sent = await this.#call<{ id: string }>('send a message', (rest, signal) =>
      rest.post(Routes.channelMessages(channelId), { body, signal }),
    );
    return { messageId: sent.id };
  }

  async edit(chat: string, messageId: string, message: OutboundMessage): Promise<void> {
    const { channelId } = parseChatKey(chat);
    const body = messageBody(message, true, this.mentions);
    await this.#call('edit a message', (rest, signal) =>
      rest.patch(Routes.channelMessage(channelId, messageId), { body, signal }),
    );
  }

  async delete(chat: string, messageId: string): Promise<void> {
    const { channelId } = parseChatKey(chat);
    await this.#call('delete a message', (rest, signal) =>
      rest.delete(Routes.channelMessage(channelId, messageId), { signal }),
    );
  }

  async typing(chat: string): Promise<void> {
    const { channelId } = parseChatKey(chat);
    await this.#call('show typing', (rest, signal) => rest.post(Routes.channelTyping(channelId), { signal }));
  }
}
