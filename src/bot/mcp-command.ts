/**
 * `/mcp prompts` lists the prompts the MCP servers offer; `/mcp run
 * <server> <prompt> [name=value…]` fills one and sends its text to the agent
 * as the person's own message, queued like one; `/mcp login` and `/mcp
 * logout` sign the bot in to and out of an HTTP server. What the prompts and
 * servers are comes from the session factory; the bot knows nothing of MCP itself.
 */
import { describeError } from '../errors.js';
import type { ToolPrompt } from '../vocabulary.js';
import { shortId } from './buttons.js';
import type { CommandContext } from './command-context.js';
import { markdownInlineCode } from './format/syntax.js';
import { runSignIn } from './mcp-sign-in.js';

const USAGE =
  'Usage: /mcp prompts, /mcp run <server> <prompt> [name=value…], /mcp login <server> or /mcp logout <server>';

/** Runs `/mcp <args>`. */
export async function runMcp(ctx: CommandContext, args: string): Promise<void> {
  const [what, ...rest] = args.split(/\s+/).filter(Boolean);
  if (what === 'prompts' && rest.length === 0) return listPrompts(ctx);
  if (what === 'run' && rest.length >= 2)
    return runPrompt(ctx, rest[0] as string, rest[1] as string, rest.slice(2));
  if ((what === 'login' || what === 'logout') && rest.length === 1)
    return runSignIn(ctx, what, rest[0] as string);
  await ctx.answer(USAGE);
}

async function listPrompts(ctx: CommandContext): Promise<void> {
  const prompts = await ctx.registry.prompts();
  if (prompts.length === 0) {
    await ctx.answer('No MCP server offers prompts.');
    return;
  }
  await ctx.answer(
    ['Prompts (/mcp run <server> <prompt> [name=value…]):', ...prompts.map(promptLine)].join('\n'),
  );
}

function promptLine(p: ToolPrompt): string {
  const args = p.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
  const description = p.description ? ` - ${p.description.slice(0, 200)}` : '';
  return `${markdownInlineCode(p.server)} ${markdownInlineCode(p.name)}${args ? ` ${args}` : ''}${description}`;
}

async function runPrompt(
  ctx: CommandContext,
  server: string,
  prompt: string,
  words: string[],
): Promise<void> {
  let text: string;
  try {
    text = await ctx.registry.promptText(server, prompt, words);
  } catch (err) {
    await ctx.answer(describeError(err));
    return;
  }
  const queued = ctx.runtime.enqueue({
    kind: 'message',
    // A slash command is no message to reply to: the reply stands on its own.
    ...(ctx.messageId === undefined
      ? { messageId: `mcp-prompt-${shortId()}`, replyable: false as const }
      : { messageId: ctx.messageId }),
    text,
    files: [],
    requester: { key: ctx.user, name: ctx.userName },
    owner: ctx.owner,
  });
  await ctx.answer(
    queued
      ? `Running the prompt ${markdownInlineCode(prompt)} of ${markdownInlineCode(server)}.`
      : 'The queue is full: send it again once the replies before it are done.',
  );
}
