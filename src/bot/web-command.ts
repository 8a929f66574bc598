/**
 * `/web on|off`: whether the agent may search and read the web in this chat.
 * An admin's switch, because searches cost money and pages are untrusted
 * input. The tools stay declared (the conversation's prefix never changes);
 * the model is told at the next turn.
 */
import type { InteractiveSession } from '../session/index.js';
import type { CommandContext } from './command-context.js';

/** The `/status` line about the web. */
export function webStatusLine(session: InteractiveSession): string {
  const web = session.getWeb();
  if (web === 'unavailable')
    return 'Web: not available (turned off for the bot, or the model has no web tools)';
  const tools = session.getWebTools().join(' and ');
  return web === 'on' ? `Web: on (${tools})` : `Web: off in this chat (/web on turns it on)`;
}

/** Runs `/web on|off`. */
export async function runWeb(ctx: CommandContext, args: string): Promise<void> {
  const word = args.toLowerCase();
  if (word !== 'on' && word !== 'off') {
    await ctx.answer(`Usage: /web <on|off>. ${args ? `"${args.slice(0, 40)}" is neither.` : ''}`.trim());
    return;
  }
  if (!ctx.access.isAdmin(ctx.user)) {
    await ctx.answer('Only an admin can turn the web on or off in a chat.');
    return;
  }
  let available = true;
  await ctx.runtime.exclusive(async () => {
    const session = await ctx.registry.forChat(ctx.chat, ctx.owner);
    available = session.getWeb() !== 'unavailable';
    if (!available) return;
    session.setWeb(word === 'on');
    await ctx.reportSave(session);
  });
  if (!available) {
    await ctx.answer(
      'The web is not available here: SWITCHBOARD_WEB_SEARCH and SWITCHBOARD_WEB_FETCH are off, or the model has no web tools.',
    );
    return;
  }
  await ctx.answer(
    word === 'on'
      ? 'The agent may search and read the web in this chat.'
      : 'The agent will not search or read the web in this chat (/web on turns it back on).',
  );
}
