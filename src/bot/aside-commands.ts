/**
 * /btw and /bg: a side question answered at once from the chat's
 * conversation, even while a reply runs, and kept out of it; and work run
 * in a session of its own, beside the chat, reporting back when done.
 */
import { describeError } from '../errors.js';
import type { CommandContext } from './command-context.js';

/** Longest side question or background prompt, like a message's limit of a few pages. */
const MAX_TEXT_CHARS = 4_000;

/** Why `args` cannot be used (the line to answer), or undefined when it can. */
function refusal(args: string, what: string, usage: string): string | undefined {
  if (!args) return usage;
  if (args.length > MAX_TEXT_CHARS)
    return `The ${what} is ${args.length} characters; keep it under ${MAX_TEXT_CHARS.toLocaleString('en-US')}.`;
  return undefined;
}

/** `/btw <question>`. */
export async function runBtw(ctx: CommandContext, args: string): Promise<void> {
  const refused = refusal(
    args,
    'question',
    'Usage: /btw <question>: asked beside the running reply, and kept out of the conversation.',
  );
  if (refused) return ctx.answer(refused);
  const session = await ctx.registry.existing(ctx.chat);
  if (!session)
    return ctx.answer(
      'Nothing to ask about yet: this chat has no conversation. Send a message to start one.',
    );
  try {
    const answer = await session.askAside({ text: args, author: ctx.userName });
    await ctx.answer(`💬 ${answer}`);
  } catch (err) {
    ctx.logger.warn({ chat: ctx.chat, err: describeError(err) }, 'side question failed');
    await ctx.answer(`The side question could not be answered: ${describeError(err)}`);
  }
}

/** `/bg <prompt>`. */
export async function runBg(ctx: CommandContext, args: string): Promise<void> {
  const refused = refusal(
    args,
    'prompt',
    'Usage: /bg <prompt>: runs in a new session beside this chat and reports back when done.',
  );
  if (refused) return ctx.answer(refused);
  if (!ctx.backgroundRuns) return ctx.answer('Background runs are not set up in this bot.');
  const id = await ctx.backgroundRuns.start({
    chat: ctx.chat,
    user: ctx.user,
    userName: ctx.userName,
    owner: ctx.owner,
    prompt: args,
  });
  await ctx.answer(`Started session ${id} in the background; a line will say here when it ends.`);
}
