/**
 * Slash commands and button presses. Discord drops an interaction that is
 * not acknowledged within 3 seconds, so a command is deferred before anything
 * slow happens (its answer then edits the deferred reply), and a button press
 * the core has not answered by `interactionAckMs` is acknowledged silently
 * (its answer then arrives as an ephemeral follow-up).
 */
import {
  type ButtonInteraction,
  ChannelType,
  type ChatInputCommandInteraction,
  type GuildMember,
  type Interaction,
  type Message,
  MessageFlags,
  type RepliableInteraction,
  type ThreadChannel,
} from 'discord.js';
import type { ChatUser, Responder } from '../../src/bot/adapter-contract.js';
import { MAX_MESSAGE_LENGTH } from './capabilities.js';
import { threadKey } from './chat-key.js';
import { commandWords, PRIVATE_ANSWERS } from './commands.js';
import { chatUser, deliver, type InboundContext, sessionChat } from './context.js';
import { THREAD_REFUSED, threadName } from './inbound.js';

/** Shown when a session command is used where there is no session. */
export const OUTSIDE_SESSION_HINT =
  'This works inside a switchboard thread or a DM with me. Start one with /ask or by mentioning me in a channel.';
const FAILED = 'Something went wrong on my side; please try again.';
/** Said for a user or message context-menu command: switchboard registers none. */
export const UNSUPPORTED_CONTEXT_MENU =
  "I don't have context-menu commands; use /ask or mention me with your question.";
/** Said for a select menu or other control the bot no longer offers. */
export const INACTIVE_CONTROL = 'This control is no longer active.';
/** Said for any other interaction switchboard does not offer (a form, an activity). */
export const UNSUPPORTED_INTERACTION = "I can't do that here; use /ask or mention me with your question.";
const NO_MENTIONS = { parse: [] as never[] };

function clip(text: string): string {
  const chars = [...text];
  return chars.length > MAX_MESSAGE_LENGTH ? `${chars.slice(0, MAX_MESSAGE_LENGTH - 1).join('')}…` : text;
}

function userOf(i: ChatInputCommandInteraction | ButtonInteraction): ChatUser {
  const member = i.member && 'displayName' in i.member ? (i.member as GuildMember) : null;
  return chatUser(i.user, member);
}

/** Answers once; later calls are no-ops, and a failed answer is logged rather than thrown at the core. */
function answerOnce(
  ctx: InboundContext,
  send: (text: string, ephemeral: boolean) => Promise<unknown>,
): Responder {
  let done = false;
  return async ({ text, ephemeral }) => {
    if (done) return;
    done = true;
    try {
      await send(clip(text), ephemeral !== false);
    } catch (err) {
      ctx.logger.warn({ err }, 'could not answer a Discord interaction');
    }
  };
}

/** Routes interactions to the core. */
export class DiscordInteractions {
  constructor(private readonly ctx: InboundContext) {}

  /** Every interaction ends answered: handled, refused in one line, or acknowledged (autocomplete). */
  async onInteraction(interaction: Interaction): Promise<void> {
    try {
      if (interaction.isChatInputCommand()) await this.#command(interaction);
      else if (interaction.isButton()) await this.#button(interaction);
      else if (interaction.isAutocomplete()) await interaction.respond([]);
      else if (interaction.isRepliable()) await this.#unsupported(interaction);
    } catch (err) {
      this.ctx.logger.error(
        { err, kind: interaction.type, id: interaction.id },
        'Discord interaction handling failed',
      );
      await this.#failed(interaction);
    }
  }

  /** Context-menu commands, select menus, modals: things switchboard never offers (a stale registration, another version). */
  async #unsupported(i: RepliableInteraction): Promise<void> {
    const what = i.isContextMenuCommand()
      ? UNSUPPORTED_CONTEXT_MENU
      : i.isMessageComponent()
        ? INACTIVE_CONTROL
        : UNSUPPORTED_INTERACTION;
    this.ctx.logger.info(
      { kind: i.type, id: i.id },
      'answered a Discord interaction switchboard does not offer',
    );
    await i.reply({ content: what, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  }

  /** A handler failed: the person still gets an answer if Discord will take one. */
  async #failed(interaction: Interaction): Promise<void> {
    try {
      if (interaction.isAutocomplete()) {
        if (!interaction.responded) await interaction.respond([]);
      } else if (interaction.isRepliable()) {
        if (interaction.deferred)
          await interaction.editReply({ content: FAILED, allowedMentions: NO_MENTIONS });
        else if (!interaction.replied)
          await interaction.reply({ content: FAILED, flags: MessageFlags.Ephemeral });
      }
    } catch (err) {
      this.ctx.logger.warn(
        { err, id: interaction.id },
        'could not tell a Discord user their interaction failed',
      );
    }
  }

  async #command(i: ChatInputCommandInteraction): Promise<void> {
    const { name, args } = commandWords(i);
    const chat = sessionChat(this.ctx, i.channel, true);
    if (name === 'ask') return this.#ask(i, chat, args);
    if (!chat) {
      await i.reply({ content: OUTSIDE_SESSION_HINT, flags: MessageFlags.Ephemeral });
      return;
    }
    await i.deferReply(PRIVATE_ANSWERS.has(name) ? { flags: MessageFlags.Ephemeral } : {});
    const respond = answerOnce(this.ctx, (content) => i.editReply({ content, allowedMentions: NO_MENTIONS }));
    const accepted = await deliver(this.ctx, {
      type: 'command',
      chat,
      user: userOf(i),
      deliveryId: i.id,
      name,
      args,
      respond,
    });
    if (!accepted) await respond({ text: FAILED });
  }

  async #ask(i: ChatInputCommandInteraction, chat: string | undefined, prompt: string): Promise<void> {
    const inChannel = !chat && i.channel?.type === ChannelType.GuildText;
    if (!chat && !inChannel) {
      await i.reply({ content: OUTSIDE_SESSION_HINT, flags: MessageFlags.Ephemeral });
      return;
    }
    // A stranger is refused privately, before the public "asked:" reply and its thread exist.
    const refusal = this.ctx.gate?.refusal(i.user.id);
    if (refusal !== undefined) {
      await i.reply({ content: clip(refusal), flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
      return;
    }
    await i.deferReply();
    const user = userOf(i);
    const shown = clip(`**${user.name}** asked: ${prompt}`);
    const reply = await i.editReply({ content: shown, allowedMentions: NO_MENTIONS });
    let target = chat;
    let messageId = reply.id;
    if (!target) {
      let thread: ThreadChannel;
      try {
        thread = await this.#threadFor(i, reply, prompt, user.name);
      } catch (err) {
        this.ctx.logger.warn({ err }, 'could not open a thread for /ask');
        await i.editReply({ content: clip(`${shown}\n${THREAD_REFUSED}`), allowedMentions: NO_MENTIONS });
        return;
      }
      target = threadKey(thread.id);
      if (thread.id !== reply.id) messageId = thread.id;
    }
    const accepted = await deliver(this.ctx, {
      type: 'message',
      chat: target,
      user,
      deliveryId: i.id,
      text: prompt,
      messageId,
    });
    if (!accepted) {
      await i.editReply({ content: clip(`${shown}\n${FAILED}`), allowedMentions: NO_MENTIONS });
    } else if (!chat) {
      const pointer = `${shown}\n→ <#${target.slice(target.indexOf(':') + 1)}>`;
      await i.editReply({ content: clip(pointer), allowedMentions: NO_MENTIONS });
    }
  }

  /** A thread hanging off the /ask reply, or a standalone thread when that is refused. */
  async #threadFor(
    i: ChatInputCommandInteraction,
    reply: Message,
    prompt: string,
    author: string,
  ): Promise<ThreadChannel> {
    const name = threadName(prompt, author);
    try {
      return await reply.startThread({ name, autoArchiveDuration: 1440 });
    } catch (err) {
      this.ctx.logger.warn(
        { err },
        'could not start a thread from the /ask reply; opening a standalone thread',
      );
      const channel = i.channel;
      if (channel?.type !== ChannelType.GuildText) throw err;
      return channel.threads.create({ name, autoArchiveDuration: 1440 });
    }
  }

  async #button(i: ButtonInteraction): Promise<void> {
    const chat = sessionChat(this.ctx, i.channel, true);
    let started = false;
    let acknowledging: Promise<void> | undefined;
    const timer = this.ctx.clock.setTimeout(() => {
      if (started) return;
      acknowledging = i
        .deferUpdate()
        .then(() => undefined)
        .catch((err) => this.ctx.logger.warn({ err }, 'could not acknowledge a Discord button press'));
    }, this.ctx.interactionAckMs);
    const respond = answerOnce(this.ctx, async (content, ephemeral) => {
      started = true;
      this.ctx.clock.clearTimeout(timer);
      const body = ephemeral
        ? { content, allowedMentions: NO_MENTIONS, flags: MessageFlags.Ephemeral as const }
        : { content, allowedMentions: NO_MENTIONS };
      if (acknowledging) {
        await acknowledging;
        await i.followUp(body);
      } else {
        await i.reply(body);
      }
    });
    if (!chat) {
      await respond({ text: 'This button is no longer active.', ephemeral: true });
      return;
    }
    const accepted = await deliver(this.ctx, {
      type: 'button',
      chat,
      user: userOf(i),
      deliveryId: i.id,
      payload: i.customId,
      messageId: i.message.id,
      respond,
    });
    if (!accepted) await respond({ text: FAILED, ephemeral: true });
  }
}
