/**
 * State shared by the inbound handlers: the client, the core's sink, and
 * which threads are switchboard sessions.
 */
import { type Channel, ChannelType, type Client, type ThreadChannel } from 'discord.js';
import type { AccessGate, ChatUser, EventSink } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';
import type { DownloadLimits } from './attachments.js';
import { dmKey, threadKey } from './chat-key.js';

/** What inbound handlers share. */
export interface InboundContext {
  client: Client<true>;
  sink: EventSink;
  logger: Logger;
  clock: Clock;
  /** An unanswered interaction is acknowledged after this long (Discord's deadline is 3 s). */
  interactionAckMs: number;
  /** Threads the bot joined by a mention in a thread someone else started. */
  joinedThreads: Set<string>;
  /** The core's access check, asked before a thread is opened or joined for someone. */
  gate?: AccessGate;
  /** Bounds of attachment downloads. */
  downloads: DownloadLimits;
}

/**
 * True for a thread that is a switchboard session: the bot started it or was
 * mentioned in it. `ownerUnknown` decides for a partial thread whose owner is
 * not known: interactions (deliberate commands and button presses on the
 * bot's own messages) accept it; plain messages fetch the thread first.
 */
export function isSessionThread(ctx: InboundContext, thread: ThreadChannel, ownerUnknown = false): boolean {
  if (thread.ownerId == null) return ownerUnknown || ctx.joinedThreads.has(thread.id);
  return thread.ownerId === ctx.client.user.id || ctx.joinedThreads.has(thread.id);
}

/** The session chat key of a channel, or undefined when the channel is not a session. */
export function sessionChat(
  ctx: InboundContext,
  channel: Channel | null | undefined,
  ownerUnknown = false,
): string | undefined {
  if (!channel) return undefined;
  if (channel.type === ChannelType.DM) return dmKey(channel.id);
  if (channel.isThread() && isSessionThread(ctx, channel, ownerUnknown)) return threadKey(channel.id);
  return undefined;
}

/** A person as the core sees them: their server nickname when there is one. */
export function chatUser(
  user: { id: string; username: string; globalName: string | null },
  member?: { displayName?: string } | null,
): ChatUser {
  return { id: user.id, name: member?.displayName ?? user.globalName ?? user.username };
}

/** Hands an event to the core; a failing core is logged, never thrown into discord.js's emitter. */
export async function deliver(ctx: InboundContext, event: Parameters<EventSink>[0]): Promise<boolean> {
  try {
    await ctx.sink(event);
    return true;
  } catch (err) {
    ctx.logger.error(
      { err, chat: event.chat, type: event.type },
      'the bot core failed to accept a Discord event',
    );
    return false;
  }
}
