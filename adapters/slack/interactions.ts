/**
 * Slash commands and button presses. Both are acknowledged at once (Slack
 * gives 3 seconds), then handed to the core. `/switchboard <command> <args>`
 * goes to the thread Slack says the user is in, else the channel's most
 * recent session thread (and the user is told which), else a new thread
 * started at the channel's top level.
 */

import type {
  AccessGate,
  ButtonEvent,
  ChatEvent,
  EventSink,
  Responder,
} from '../../src/bot/adapter-contract.js';
import type { Logger } from '../../src/logger.js';
import { BOT_COMMANDS, isBotCommand, parseSlashText, slashUsage } from './commands.js';
import { dispatchToCore } from './core-sink.js';
import type { BotIdentity } from './inbound.js';
import { slackChatKey } from './keys.js';
import type { SlackOutbound } from './outbound.js';
import type { ThreadTracker } from './threads.js';
import type { UserNames } from './users.js';

/** The fields of a slash command payload the adapter reads. */
export interface SlashCommandPayload {
  command: string;
  text: string;
  user_id: string;
  user_name?: string;
  channel_id: string;
  team_id?: string;
  trigger_id?: string;
  thread_ts?: string;
}

/** The fields of a block_actions payload the adapter reads. */
export interface BlockActionsPayload {
  type: string;
  user: { id: string; name?: string; username?: string };
  channel?: { id: string };
  container?: { message_ts?: string; channel_id?: string; thread_ts?: string };
  message?: { ts: string; thread_ts?: string };
  trigger_id?: string;
}

/** One pressed button. */
export interface ButtonAction {
  type: string;
  value?: string;
  action_ts?: string;
}

/** Answers through the command's response_url (ephemeral, in the channel). */
export type ResponseUrlReply = (text: string) => Promise<void>;

/** Dependencies of {@link SlackInteractions}. */
export interface InteractionDeps {
  tracker: ThreadTracker;
  users: UserNames;
  outbound: SlackOutbound;
  logger: Logger;
  commandName: string;
  /** "the latest thread", linked to it where Slack gives a permalink, for "In the latest thread: ..." notes. */
  threadLink: (channel: string, threadTs: string) => Promise<string>;
  /** Posts a top-level message and returns its ts (a new thread). */
}

/** Makes a responder that answers once and ignores later calls. */
function once(fn: Responder): Responder {
  let used = false;
  return async (reply) => {
    if (used) return;
    used = true;
    await fn(reply);
  };
}

/**
 * The answer, to the person only, to a command run in a channel where they
 * have no session thread yet.
 */
export function noThreadHint(commandName: string, name: string, botUserId: string | undefined): string {
  const me = botUserId ? `<@${botUserId}>` : 'me';
  const start = `Mention ${me} in a message to start one; then run ${commandName} in its thread, or here.`;
  if (name === 'help') {
    return `You have no session with me in this channel yet. ${start} The commands: ${BOT_COMMANDS.join(', ')}.`;
  }
  return `You have no session with me in this channel yet, so there is nothing for ${commandName} ${name} to act on. ${start}`;
}

/** Slash commands and buttons. */
export class SlackInteractions {
  sink: EventSink | undefined;
  bot: BotIdentity | undefined;
  /** The core's access check, asked before a thread is started for a slash command. */
  gate: AccessGate | undefined;

  constructor(private readonly deps: InteractionDeps) {}

  /** Call after ack(). */
  async onCommand(command: SlashCommandPayload, respondUrl: ResponseUrlReply): Promise<void> {
    const { tracker, logger } = this.deps;
    // A stranger is answered only to them: no thread is started in the channel for them.
    const refusal = this.gate?.refusal(command.user_id);
    if (refusal !== undefined) {
      await respondUrl(refusal).catch((err) =>
        logger.warn({ err }, 'could not refuse a Slack slash command'),
      );
      return;
    }
    const { name, args } = parseSlashText(command.text ?? '');
    if (!isBotCommand(name)) {
      await respondUrl(slashUsage(this.deps.commandName, name)).catch((err) =>
        logger.warn({ err }, 'could not answer a Slack slash command'),
      );
      return;
    }
    const channel = command.channel_id;
    const userId = command.user_id;
    let threadTs = command.thread_ts;
    let note = '';
    if (!threadTs) {
      // The person's own session in this channel, never whichever thread was busiest last.
      threadTs = tracker.recentOf(channel, userId);
      if (threadTs) note = `In ${await this.deps.threadLink(channel, threadTs)}: `;
    }
    if (!threadTs) {
      // Nothing is posted in the channel for a command: a session starts with a mention, in its own thread.
      await respondUrl(noThreadHint(this.deps.commandName, name, this.bot?.userId)).catch((err) =>
        logger.warn({ err }, 'could not answer a Slack slash command'),
      );
      return;
    }
    tracker.join(channel, threadTs);
    tracker.touch(channel, threadTs, userId);
    tracker.setRecipient(channel, threadTs, { userId, teamId: command.team_id ?? this.bot?.teamId ?? '' });
    if (note) await respondUrl(`${note}running ${this.deps.commandName} ${name}.`).catch(() => {});
    const chat = slackChatKey(channel, threadTs);
    const thread = threadTs;
    const respond = once(async ({ text }) => {
      if (!text) return;
      try {
        await this.deps.outbound.ephemeral(channel, thread, userId, `${note}${text}`);
      } catch (err) {
        logger.debug({ err }, 'chat.postEphemeral failed; answering through response_url');
        await respondUrl(`${note}${text}`);
      }
    });
    const userName = await this.deps.users.name(userId, command.user_name);
    await this.#dispatch({
      type: 'command',
      chat,
      user: { id: userId, name: userName },
      name,
      args,
      respond,
      ...(command.trigger_id ? { deliveryId: command.trigger_id } : {}),
    });
  }

  /** Call after ack(). */
  async onButton(body: BlockActionsPayload, action: ButtonAction): Promise<void> {
    if (body.type !== 'block_actions' || action.type !== 'button' || action.value === undefined) return;
    const channel = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.message?.ts ?? body.container?.message_ts;
    if (!channel || !messageTs) return;
    const threadTs = body.message?.thread_ts ?? body.container?.thread_ts ?? messageTs;
    const userId = body.user.id;
    const name = await this.deps.users.name(userId, body.user.name ?? body.user.username);
    const respond = once(async ({ text }) => {
      if (!text) return;
      await this.deps.outbound
        .ephemeral(channel, threadTs, userId, text)
        .catch((err) => this.deps.logger.warn({ err }, 'could not answer a Slack button press'));
    });
    const event: ButtonEvent = {
      type: 'button',
      chat: slackChatKey(channel, threadTs),
      user: { id: userId, name },
      payload: action.value,
      messageId: messageTs,
      deliveryId: `${messageTs}:${action.action_ts ?? body.trigger_id ?? ''}`,
      respond,
    };
    await this.#dispatch(event);
  }

  /** Hands an event to the core; a failing sink is logged, never thrown into Bolt. */
  #dispatch(event: ChatEvent): Promise<void> {
    return dispatchToCore(this.sink, event, this.deps.logger, 'interaction');
  }
}
