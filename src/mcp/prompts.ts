/**
 * Server prompts (`prompts/list`, `prompts/get`) as the bot's `/mcp prompts`
 * and `/mcp run <server> <prompt> [args]`: a prompt's arguments come from the
 * command line as `name=value` words (a bare word fills the next argument
 * the prompt declares), and its messages become the text of one message to
 * the agent.
 */
import type { GetPromptResult, Prompt as McpPrompt } from '@modelcontextprotocol/sdk/types.js';
import { SwitchboardError } from '../errors.js';
import type { ToolPrompt } from '../vocabulary.js';

/** A listed prompt of `server` in the bot's words. */
export function toToolPrompt(server: string, prompt: McpPrompt, scrub: (text: string) => string): ToolPrompt {
  const description = (prompt.description ?? prompt.title ?? '').trim();
  return {
    server,
    name: prompt.name,
    ...(description ? { description: scrub(description) } : {}),
    arguments: (prompt.arguments ?? []).map((a) => ({
      name: a.name,
      required: a.required === true,
      ...(a.description ? { description: scrub(a.description) } : {}),
    })),
  };
}

/**
 * `words` (`repo=a/b`, or bare words in the order the prompt declares its
 * arguments) as the prompt's arguments.
 *
 * @throws SwitchboardError `TOOL_FAILED` naming what is missing or unknown.
 */
export function promptArguments(prompt: ToolPrompt, words: readonly string[]): Record<string, string> {
  const args: Record<string, string> = {};
  const declared = prompt.arguments.map((a) => a.name);
  const bare: string[] = [];
  for (const word of words) {
    const eq = word.indexOf('=');
    const key = eq > 0 ? word.slice(0, eq) : undefined;
    if (key !== undefined && declared.includes(key)) args[key] = word.slice(eq + 1);
    else bare.push(word);
  }
  for (const name of declared) if (!(name in args) && bare.length > 0) args[name] = bare.shift() as string;
  const usage = `Usage: /mcp run ${prompt.server} ${prompt.name}${prompt.arguments.map((a) => (a.required ? ` ${a.name}=…` : ` [${a.name}=…]`)).join('')}`;
  if (bare.length > 0)
    throw new SwitchboardError(
      'TOOL_FAILED',
      `The prompt takes no more arguments than it declares. ${usage}`,
    );
  const missing = prompt.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length > 0)
    throw new SwitchboardError('TOOL_FAILED', `The prompt needs ${missing.join(', ')}. ${usage}`);
  return args;
}

/** The prompt's messages as one text for the agent; what it cannot carry as text is named. */
export function promptText(result: GetPromptResult): string {
  const parts = result.messages.map((message) => {
    const c = message.content;
    const text =
      c.type === 'text'
        ? c.text
        : c.type === 'resource' && 'text' in c.resource && typeof c.resource.text === 'string'
          ? `[resource ${c.resource.uri}]\n${c.resource.text}`
          : c.type === 'resource_link'
            ? `[resource link: ${c.name} ${c.uri}]`
            : `[${c.type} left out]`;
    return message.role === 'user' ? text : `(${message.role}) ${text}`;
  });
  return parts.join('\n\n');
}
