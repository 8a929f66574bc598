/**
 * Server prompts as commands, against the published server-everything:
 * `/mcp prompts` lists them with their arguments, `/mcp run` fills one and
 * the agent gets its text as the person's message; a wrong prompt or a
 * missing argument is answered, never run.
 */
import { describe, expect, it } from 'vitest';
import { everythingStdio } from '../fixtures/mcp/published.js';
import { closingMcpWorlds } from './helpers.js';

const startMcpWorld = closingMcpWorlds();

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
const lastUserText = (body: any): string => {
  const content = body.messages.at(-1).content;
  return typeof content === 'string' ? content : content.map((b: { text?: string }) => b.text ?? '').join('');
};

describe('/mcp prompts and /mcp run', () => {
  it('lists the prompts and runs one with its arguments as the person’s message', async () => {
    const { h } = await startMcpWorld({ everything: everythingStdio });
    const list = await h.ask('mcp', 'prompts');
    expect(list).toContain('`everything` `simple-prompt`');
    expect(list).toContain('`everything` `args-prompt` city [state] - A prompt with two arguments');

    h.fakeAnthropic.enqueue({ text: 'Sunny in Paris.' });
    expect(await h.ask('mcp', 'run everything args-prompt Paris state=Texas')).toBe(
      'Running the prompt `args-prompt` of `everything`.',
    );
    await h.settle();
    expect(lastUserText(h.fakeAnthropic.requests[0])).toContain("What's weather in Paris, Texas?");
    expect(h.texts().join('\n')).toContain('Sunny in Paris.');
  });

  it('answers a missing argument, an unknown prompt and a bad usage without starting a turn', async () => {
    const { h } = await startMcpWorld({ everything: everythingStdio });
    expect(await h.ask('mcp', 'run everything args-prompt')).toMatch(
      /The prompt needs city\. Usage: \/mcp run everything args-prompt city=… \[state=…\]/,
    );
    expect(await h.ask('mcp', 'run everything no-such-prompt')).toMatch(
      /The MCP server "everything" has no prompt "no-such-prompt"/,
    );
    expect(await h.ask('mcp', 'run nowhere simple-prompt')).toMatch(/There is no MCP server "nowhere"/);
    expect(await h.ask('mcp', 'dance')).toMatch(/^Usage: \/mcp prompts/);
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });
});
