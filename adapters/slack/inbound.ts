/**
 * Slack events as the core's events. A mention in a channel starts a
 * session in that message's thread; later messages in a thread the bot takes
 * part in continue it without a mention; in a DM every thread is a session.
 * A mention arrives twice (`message` and `app_mention`, different event ids),
 * Slack redelivers events it thinks were lost, and bots (this one included)
 * post messages too: each is handed on once, and bots never.
 */

import {
  type AccessGate,
  type ChatEvent,
  type EventSink,
  type MessageEvent,
  parseTextCommand,
} from '../../src/bot/adapter-contract.js';
import type { Logger } from '../../src/logger.js';
import { dispatchToCore } from './core-sink.js';
import type { SlackFile, SlackFiles } from './files.js';
import { isDirectChannel, slackChatKey } from './keys.js';
import type { ThreadTracker } from './threads.js';
import type { UserNames } from './users.js';

/** Who the bot is, from auth.test. */
export interface BotIdentity {
  userId: string;
  botId: string;
  teamId: string;
}

/** The parts of a message event the adapter reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  team?: string;
  files?: SlackFile[];
  message?: SlackMessageEvent;
  previous_message?: { text?: string };
}

/** Subtypes that are still a person writing to the bot. */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

/** Slack markup in a person's text, as plain text for the model. */
export function decodeSlackText(text: string, botUserId: string): string {
  return text
    .replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g'), '')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A person mentioned by id, a channel link, a user group, or a broadcast (`<!here>`), each with its optional label. */
const REFERENCE =
  /<@([UW][A-Z0-9]+)(?:\|([^>]*))?>|<#(C[A-Z0-9]+)(?:\|([^>]*))?>|<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>|<!(here|channel|everyone)(?:\|[^>]*)?>/g;

/**
 * A person's text as the model should read it: Slack's references said as
 * people see them (`<@W111>` as `@Ann`, `<#C0…|general>` as `#general`,
 * `<!here>` as `@here`), then the rest of the markup as in
 * {@link decodeSlackText}. The model never sees an id in angle brackets,
 * so it never repeats one as raw markup that notifies nobody.
 */
export async function readableSlackText(
  text: string,
  botUserId: string,
  nameOf: (id: string) => Promise<string>,
): Promise<string> {
  const people = new Map<string, string>();
  for (const m of text.matchAll(REFERENCE)) {
    const id = m[1];
    if (id && id !== botUserId && !m[2] && !people.has(id)) people.set(id, await nameOf(id));
  }
  const said = text.replace(REFERENCE, (whole, user, userLabel, channel, channelLabel, group, broadcast) => {
    if (user === botUserId) return whole;
    if (user) return `@${userLabel || people.get(user) || user}`;
    if (channel) return `#${channelLabel || channel}`;
    if (broadcast) return `@${broadcast}`;
    return group ? `${String(group).startsWith('@') ? '' : '@'}${group}` : '@group';
  });
  return decodeSlackText(said, botUserId);
}

/** True when `text` mentions the user (`<@U123>` or `<@U123|name>`, not `<@U1234>`). */
export function mentions(text: string, userId: string): boolean {
  return new RegExp(`<@${userId}(\\|[^>]*)?>`).test(text);
}

/** Dependencies of {@link SlackInbound}. */
export interface InboundDeps {
  tracker: ThreadTracker;
  users: UserNames;
  logger: Logger;
  files: SlackFiles;
  /** Does the thread contain a message of the bot? (conversations.replies) */
  botInThread: (channel: string, threadTs: string) => Promise<boolean>;
  /** Shows `text` to `user` only (chat.postEphemeral), in the thread when there is one. */
  tellOnly: (channel: string, threadTs: string | undefined, user: string, text: string) => Promise<void>;
}

/**
 * Slackbot's own user id. Slackbot writes into the bot's DM ("You have been
 * removed from #general by …"): a notice, not a person talking to the bot.
 */
export const SLACKBOT_USER = 'USLACKBOT';

/** Turns Slack message events into the core's message, command and edit events. */
export class SlackInbound {
  sink: EventSink | undefined;
  bot: BotIdentity | undefined;
  /** The core's access check: strangers in channels are answered privately, nothing posted for them. */
  gate: AccessGate | undefined;
  readonly #chains = new Map<string, Promise<void>>();

  constructor(private readonly deps: InboundDeps) {}

  /** Handles `message` and `app_mention` events. */
  async onEvent(eventId: string | undefined, event: SlackMessageEvent): Promise<void> {
    const bot = this.bot;
    if (!bot) return;
    const { tracker } = this.deps;
    // A redelivery (or the same id twice) never starts anything again.
    if (eventId && !tracker.events.add(eventId)) {
      this.deps.logger.debug({ eventId }, 'Slack redelivered an event already handled; dropped');
      return;
    }
    if (event.type === 'message' && event.subtype === 'message_changed')
      return this.#onEdit(eventId, event, bot);
    if (event.type !== 'message' && event.type !== 'app_mention') return;
    if (event.subtype && !PERSON_SUBTYPES.has(event.subtype)) return;
    if (event.bot_id || !event.user || event.user === bot.userId || event.user === SLACKBOT_USER) return;
    if (typeof event.channel !== 'string' || typeof event.ts !== 'string') {
      this.deps.logger.warn(
        { eventId, type: event.type },
        'Slack message event without channel or ts ignored',
      );
      return;
    }
    const { channel, ts } = event;
    const threadTs = event.thread_ts ?? ts;
    const direct = event.channel_type === 'im' || isDirectChannel(channel);
    const mentioned = event.type === 'app_mention' || mentions(event.text ?? '', bot.userId);
    const reply = event.thread_ts !== undefined && event.thread_ts !== ts;
    let check = false;
    if (!direct && !mentioned) {
      // A top-level channel message without a mention is not for the bot.
      if (!reply || tracker.knownWithoutBot(channel, threadTs)) return;
      check = !tracker.joined(channel, threadTs);
    }
    if (!tracker.messages.add(`${channel}:${ts}`)) return;
    const user = event.user;
    // A stranger's mention (or reply in a session thread) is refused before the thread is joined.
    if (!direct && !check && this.#refuse(channel, event.thread_ts, user)) return;
    if (!check) tracker.join(channel, threadTs);
    const chat = slackChatKey(channel, threadTs);
    this.#serial(chat, async () => {
      if (check && !(await this.#botIn(channel, threadTs))) return;
      if (check && this.#refuse(channel, event.thread_ts, user)) return;
      tracker.touch(channel, threadTs, user);
      tracker.setRecipient(channel, threadTs, { userId: user, teamId: event.team ?? bot.teamId });
      const name = await this.deps.users.name(user);
      const text = await readableSlackText(event.text ?? '', bot.userId, (id) => this.deps.users.name(id));
      const command = parseTextCommand(text);
      const base = { chat, user: { id: user, name }, ...(eventId ? { deliveryId: eventId } : {}) };
      if (command) {
        await this.#dispatch({
          type: 'command',
          ...base,
          name: command.name,
          args: command.args,
          messageId: ts,
        });
        return;
      }
      const message: MessageEvent = { type: 'message', ...base, text, messageId: ts };
      if (event.files?.length) message.attachments = await this.deps.files.attachments(event.files);
      await this.#dispatch(message);
    });
  }

  /**
   * True when `user` may not use the bot: in a channel they are told so only
   * to them, so no thread or reply is made public for a stranger.
   */
  #refuse(channel: string, threadTs: string | undefined, user: string): boolean {
    const refusal = this.gate?.refusal(user);
    if (refusal === undefined) return false;
    void this.deps
      .tellOnly(channel, threadTs, user, refusal)
      .catch((err) => this.deps.logger.warn({ err, channel }, 'could not refuse a Slack user privately'));
    return true;
  }

  /** Asks Slack only when an earlier message of the thread has not settled the question already. */
  async #botIn(channel: string, threadTs: string): Promise<boolean> {
    const { tracker } = this.deps;
    if (tracker.joined(channel, threadTs)) return true;
    if (tracker.knownWithoutBot(channel, threadTs)) return false;
    return this.deps.botInThread(channel, threadTs);
  }

  /** Hands an event to the core; a failing sink is logged, never thrown into Bolt. */
  #dispatch(event: ChatEvent): Promise<void> {
    return dispatchToCore(this.sink, event, this.deps.logger, 'event');
  }

  /** Runs work for one chat in arrival order (name lookups must not reorder messages). */
  #serial(chat: string, work: () => Promise<void>): void {
    const previous = this.#chains.get(chat) ?? Promise.resolve();
    const next = previous.then(work).catch((err: unknown) => {
      this.deps.logger.error({ err, chat }, 'handling a Slack message failed');
    });
    this.#chains.set(chat, next);
    void next.then(() => {
      if (this.#chains.get(chat) === next) this.#chains.delete(chat);
    });
  }

  #onEdit(eventId: string | undefined, event: SlackMessageEvent, bot: BotIdentity): void {
    const msg = event.message;
    if (!msg || msg.bot_id || !msg.user || msg.user === bot.userId) return;
    // Unfurls and other changes that keep the text are not edits by a person.
    if (event.previous_message && event.previous_message.text === msg.text) return;
    const threadTs = msg.thread_ts ?? msg.ts;
    const direct = event.channel_type === 'im' || isDirectChannel(event.channel);
    if (!direct && !this.deps.tracker.joined(event.channel, threadTs)) return;
    const chat = slackChatKey(event.channel, threadTs);
    const user = msg.user;
    this.#serial(chat, async () => {
      const name = await this.deps.users.name(user);
      await this.#dispatch({
        type: 'edit',
        chat,
        user: { id: user, name },
        text: await readableSlackText(msg.text ?? '', bot.userId, (id) => this.deps.users.name(id)),
        messageId: msg.ts,
        ...(eventId ? { deliveryId: eventId } : {}),
      });
    });
  }
}
