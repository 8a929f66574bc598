/**
 * /btw and /bg: a side question answered at once from the chat's
 * conversation, even while a reply runs, and kept out of it; and work run
 * in a session of its own, beside the chat, reporting back when done.
 */
import { describeError } from '../errors.js';
import type { CommandContext } from './command-context.js';

/** Longest side question, like a message's limit of a few pages. */
const MAX_QUESTION_CHARS = 4_000;

/** `/btw <question>`. */
export async function runBtw(ctx: CommandContext, args: string): Promise<void> {
  if (!args) {
    await ctx.answer(
      'Usage: /btw <question>: asked beside the running reply, and kept out of the conversation.',
    );
    return;
  }
  if (args.length > MAX_QUESTION_CHARS) {
    await ctx.answer(
      `The question is ${args.length} characters; keep it under ${MAX_QUESTION_CHARS.toLocaleString('en-US')}.`,
    );
    return;
  }
  const session = await ctx.registry.existing(ctx.chat);
  if (!session) {
    await ctx.answer('Nothing to ask about yet: this chat has no conversation. Send a message to start one.');
    return;
  }
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
  if (!args) {
    await ctx.answer(
      'Usage: /bg <prompt>: runs in a new session beside this chat and reports back when done.',
    );
    return;
  }
  if (args.length > MAX_QUESTION_CHARS) {
    await ctx.answer(
      `The prompt is ${args.length} characters; keep it under ${MAX_QUESTION_CHARS.toLocaleString('en-US')}.`,
    );
    return;
  }
  if (!ctx.backgroundRuns) {
    await ctx.answer('Background runs are not set up in this bot.');
    return;
  }
  const id = await ctx.backgroundRuns.start({
    chat: ctx.chat,
    user: ctx.user,
    userName: ctx.userName,
    owner: ctx.owner,
    prompt: args,
  });
  await ctx.answer(`Started session ${id} in the background; a line will say here when it ends.`);
}
