/**
 * `/mcp login <server>` and `/mcp logout <server>`: admins only, and only in
 * a private chat or the terminal, because the answer is a sign-in link that
 * lets whoever opens it sign the bot in with their account.
 */
import { describeError } from '../errors.js';
import type { CommandContext } from './command-context.js';

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
  if (!ctx.access.isPrivateChat(ctx.chat)) {
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
