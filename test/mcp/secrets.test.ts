/**
 * Values expanded from the MCP file (`${VAR}` in env, args, url, headers)
 * never reach a chat, the model or the log: a published server that hands
 * back its environment has them scrubbed from the result, and a server that
 * fails saying its token on stderr has its words in the log (scrubbed), not
 * in /status, /tools or the model's view.
 */

import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { everythingStdio } from '../fixtures/mcp/published.js';
import { USERS } from '../helpers/bot-harness.js';
import { closingMcpWorlds, turnCalling } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
const ENV_TOKEN = 'env-token-5f2b9c1d7e';
const ARG_TOKEN = 'arg-token-81a4c0e6b3';

describe('secrets of the MCP file', () => {
  it('scrubs the env values a server hands back from the tool result and the log', async () => {
    const world = await startMcpWorld(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own `${VAR}` syntax.
      { everything: { ...everythingStdio, env: { SERVICE_TOKEN: '${SERVICE_TOKEN}' } } },
      { env: { SERVICE_TOKEN: ENV_TOKEN } },
    );
    const { h } = world;
    await turnCalling(h, 'mcp__everything__get-env', {}, 'Here is the environment.');
    const result = toolResults(h.fakeAnthropic.requests).at(-1)?.text as string;
    // The server did see it (the result names the variable), but its value never leaves.
    expect(result).toContain('"SERVICE_TOKEN": "[redacted]"');
    expect(JSON.stringify(h.fakeAnthropic.requests)).not.toContain(ENV_TOKEN);
    expect(world.logs.join('\n')).not.toContain(ENV_TOKEN);
  });

  it('keeps a failing server’s stderr, which holds a value expanded into its args, in the log and out of chats', async () => {
    const world = await startMcpWorld(
      {
        failing: {
          command: process.execPath,
          args: [
            '-e',
            "console.error('cannot sign in with ' + process.argv[1]); process.exit(1)",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own `${VAR}` syntax.
            '${FAILING_TOKEN}',
          ],
        },
      },
      { env: { FAILING_TOKEN: ARG_TOKEN } },
    );
    const { h } = world;
    const status = await h.ask('status', '', { user: USERS.admin });
    expect(status).toMatch(/MCP server failing: down, .*its stderr is in the bot's log/);
    const tools = await h.ask('tools');
    for (const text of [status, tools, ...h.texts()]) {
      expect(text).not.toContain(ARG_TOKEN);
      expect(text).not.toContain('cannot sign in');
    }
    const log = world.logs.join('\n');
    expect(log).toContain('cannot sign in with [redacted]');
    expect(log).not.toContain(ARG_TOKEN);
  });
});
