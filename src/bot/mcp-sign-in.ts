/**
 * `/mcp login <server>` and `/mcp logout <server>`: admins only, and only in
 * a private chat or the terminal, because the answer is a sign-in link that
 * lets whoever opens it sign the bot in with their account.
 */
import { describeError } from '../errors.js';
import type { CommandContext } from './command-context.js';

/**
 * Whether `chat` is a one-to-one chat, from its key: a Telegram private
 * chat (a positive chat id, no topic), a Discord DM (`discord:dm:…`), a Slack
 * DM (channel ids starting with `D`), the terminal. Anything else counts as
 * shared.
 */
export function isPrivateChat(chat: string): boolean {
  const [platform, first = '', ...rest] = chat.split(':');
  if (platform === 'console') return true;
  if (platform === 'telegram') return rest.length === 0 && /^\d+$/.test(first);
  if (platform === 'discord') return first === 'dm';
  if (platform === 'slack') return first.startsWith('D');
  return false;
}

/** Runs `/mcp login|logout <server>`. */
export async function runSignIn(
  ctx: CommandContext,
  what: 'login' | 'logout',
  server: string,
): Promise<void> {
  if (!ctx.access.isAdmin(ctx.user)) {
    await ctx.answer(`Only an admin can use /mcp ${what}.`);
    return;
  }
  if (!isPrivateChat(ctx.chat)) {
    await ctx.answer(
      `/mcp ${what} works only in a private chat with the bot or in the terminal: the sign-in link must not be shown to a group.`,
    );
    return;
  }
  try {
    await ctx.answer(
      what === 'login' ? await ctx.registry.signIn(server, ctx.chat) : await ctx.registry.signOut(server),
    );
  } catch (err) {
    await ctx.answer(describeError(err));
  }
}
