/**
 * Gateway messages as the core's events. A mention of the bot in a text
 * channel opens a thread from that message, and the thread is the session;
 * every later message in a session thread continues it without a mention;
 * in a DM every message counts. Bots (the bot itself included) are ignored.
 */
import {
  ChannelType,
  DiscordAPIError,
  type Message,
  MessageReferenceType,
  type PartialMessage,
  type ThreadChannel,
} from 'discord.js';
import type { MessageEvent } from '../../src/bot/adapter-contract.js';
import { convertAttachments, messageParts, withForwarded } from './attachments.js';
import { threadKey } from './chat-key.js';
import { chatUser, deliver, type InboundContext, sessionChat } from './context.js';

const THREAD_NAME_MAX = 90;

/** Said when Discord refuses to open a thread (missing permission, thread limit). */
export const THREAD_REFUSED =
  'I could not open a thread for this here. I need the "Create Public Threads" and "Send Messages in Threads" permissions in this channel.';

/** Said when opening a thread failed for a reason that may pass (network, Discord's 5xx). */
export const THREAD_FAILED =
  'I could not open a thread just now (Discord did not answer). Please mention me again.';

/** Discord error codes that mean "not allowed here", as opposed to a passing failure. */
const REFUSAL_CODES = new Set([50001, 50013, 50024, 160002]);

function isRefusal(err: unknown): boolean {
  return err instanceof DiscordAPIError && (err.status === 403 || REFUSAL_CODES.has(Number(err.code)));
}
/** "A thread has already been created for this message": a retried request that reached Discord. */
const THREAD_EXISTS = 160004;

/** Removes mentions of the bot from message text. */
export function stripMention(text: string, botId: string): string {
  return text
    .replace(new RegExp(`<@!?${botId}>`, 'g'), ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A thread name from the first words of the prompt. */
export function threadName(text: string, author: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  const base = line.length > 0 ? line : `${author}'s session`;
  const chars = [...base];
  return chars.length > THREAD_NAME_MAX ? `${chars.slice(0, THREAD_NAME_MAX - 1).join('')}…` : base;
}

function mentionsBot(message: Message, botId: string): boolean {
  return message.mentions.users.has(botId) || new RegExp(`<@!?${botId}>`).test(message.content);
}

/** Handles new messages; one per channel at a time so a thread's messages keep their order. */
export class DiscordInbound {
  #chains = new Map<string, Promise<void>>();

  constructor(private readonly ctx: InboundContext) {}

  onMessage(message: Message): Promise<void> {
    const what = { kind: 'MESSAGE_CREATE', id: message.id };
    return this.#serial(message.channelId, what, () => this.#handleMessage(message));
  }

  onMessageUpdate(message: Message | PartialMessage, before?: Message | PartialMessage): Promise<void> {
    const what = { kind: 'MESSAGE_UPDATE', id: message.id };
    return this.#serial(message.channelId, what, () => this.#handleUpdate(message, before));
  }

  #serial(key: string, what: { kind: string; id: string }, work: () => Promise<void>): Promise<void> {
    const run = (this.#chains.get(key) ?? Promise.resolve()).then(work).catch((err) => {
      this.ctx.logger.error({ err, ...what }, 'Discord message handling failed; the event was skipped');
    });
    this.#chains.set(key, run);
    void run.then(() => {
      if (this.#chains.get(key) === run) this.#chains.delete(key);
    });
    return run;
  }

  async #handleMessage(message: Message): Promise<void> {
    const botId = this.ctx.client.user.id;
    if (message.author.bot || message.author.id === botId || message.system) return;
    let channel = message.channel ?? (await this.ctx.client.channels.fetch(message.channelId));
    // A thread known only partially (owner unknown) is fetched, so a stranger's thread is not taken for ours.
    if (channel?.isThread() && channel.ownerId == null) channel = await channel.fetch(true);
    if (!channel) return;
    const mentioned = mentionsBot(message, botId);
    const own = stripMention(message.content, botId);
    const parts = messageParts(message);
    const text = withForwarded(own, parts.forwarded);
    if (text.length === 0 && parts.files.length === 0 && parts.unreadable.length === 0) {
      this.ctx.logger.debug(
        { id: message.id, type: message.type },
        'Discord message with nothing to read ignored',
      );
      return;
    }
    let chat = sessionChat(this.ctx, channel);
    const opens = !chat && mentioned && (channel.isThread() || channel.type === ChannelType.GuildText);
    // A stranger is refused before the bot joins or opens a thread for them.
    if (opens && (await this.#refused(message))) return;
    if (!chat && channel.isThread() && mentioned) {
      // Mentioned in someone else's thread: the bot joins it and the thread becomes a session.
      this.ctx.joinedThreads.add(channel.id);
      chat = threadKey(channel.id);
    }
    if (!chat && mentioned && channel.type === ChannelType.GuildText) {
      const thread = await this.#openThread(message, own || text);
      if (!thread) return;
      chat = threadKey(thread.id);
    }
    if (!chat) return;
    const ref = message.reference;
    const replyTo =
      ref?.messageId && ref.messageId !== message.id && ref.type !== MessageReferenceType.Forward
        ? ref.messageId
        : undefined;
    const files =
      parts.files.length > 0
        ? await convertAttachments(parts.files, this.ctx.logger, this.ctx.downloads)
        : [];
    const attachments = [...files, ...parts.unreadable];
    const event: MessageEvent = {
      type: 'message',
      chat,
      user: chatUser(message.author, message.member),
      deliveryId: message.id,
      text,
      messageId: message.id,
      ...(replyTo ? { replyTo: { messageId: replyTo } } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    await deliver(this.ctx, event);
  }

  /** True when the author may not use the bot; they are told privately (a DM, else a reply). */
  async #refused(message: Message): Promise<boolean> {
    const refusal = this.ctx.gate?.refusal(message.author.id);
    if (refusal === undefined) return false;
    try {
      await message.author.send({ content: refusal, allowedMentions: { parse: [] } });
    } catch (err) {
      // DMs closed (50007): one reply where they asked, rather than silence.
      this.ctx.logger.info(
        { err, user: message.author.id },
        'could not DM a refusal; replying in the channel',
      );
      await message
        .reply({ content: refusal, allowedMentions: { parse: [], repliedUser: false } })
        .catch((replyErr) => this.ctx.logger.warn({ err: replyErr }, 'could not refuse a Discord user'));
    }
    return true;
  }

  async #openThread(message: Message, text: string): Promise<ThreadChannel | undefined> {
    const author = chatUser(message.author, message.member).name;
    const name = threadName(text, author);
    let lastError: unknown;
    // One retry: a dropped connection or a 5xx is worth a second try; a refusal is not.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await message.startThread({ name, autoArchiveDuration: 1440 });
      } catch (err) {
        lastError = err;
        if (err instanceof DiscordAPIError && err.code === THREAD_EXISTS) {
          const thread = await this.ctx.client.channels.fetch(message.id).catch(() => null);
          if (thread?.isThread()) return thread;
        }
        if (isRefusal(err)) break;
      }
    }
    const refused = isRefusal(lastError);
    this.ctx.logger.warn(
      { err: lastError, channel: message.channelId, refused },
      'could not open a thread for a mention',
    );
    // Say why nothing happens rather than ignoring the person.
    await message
      .reply({
        content: refused ? THREAD_REFUSED : THREAD_FAILED,
        allowedMentions: { parse: [], repliedUser: false },
      })
      .catch(() => {});
    return undefined;
  }

  async #handleUpdate(update: Message | PartialMessage, before?: Message | PartialMessage): Promise<void> {
    const message = update.partial ? await update.fetch() : update;
    const botId = this.ctx.client.user.id;
    if (message.author.bot || message.author.id === botId) return;
    // Embeds unfurling also arrive as updates; only a changed text is an edit.
    if (before && !before.partial && before.content === message.content) return;
    const channel = message.channel ?? (await this.ctx.client.channels.fetch(message.channelId));
    let chat = sessionChat(this.ctx, channel);
    if (!chat && channel?.type === ChannelType.GuildText) {
      // The message that opened a thread lives in the parent channel; its thread has the message's id.
      const thread = message.thread ?? this.ctx.client.channels.cache.get(message.id);
      if (thread?.isThread() && thread.ownerId === botId) chat = threadKey(thread.id);
    }
    if (!chat) return;
    await deliver(this.ctx, {
      type: 'edit',
      chat,
      user: chatUser(message.author, message.member),
      deliveryId: `edit:${message.id}:${message.editedTimestamp ?? 0}`,
      text: stripMention(message.content, botId),
      messageId: message.id,
    });
  }
}
