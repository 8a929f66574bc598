/**
 * A real MCP server over Streamable HTTP on 127.0.0.1: `${VAR}` in the
 * file's url and headers reaches it, its tools work through a real
 * session, and a tool list that changes mid-turn changes the request's
 * tools only from the next turn (the tools are the prompt cache's first
 * breakpoint).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { type RemoteMcp, startRemoteMcp } from '../fixtures/mcp/remote-server.js';
import { closingMcpWorlds, type McpWorld, toolChanges, toolNames, turnCalling } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
let remote: RemoteMcp | undefined;
afterEach(async () => {
  await remote?.close();
  remote = undefined;
});

const TOKEN = 'remote-token-0123456789';

async function startRemoteWorld(): Promise<{ world: McpWorld; remote: RemoteMcp }> {
  remote = await startRemoteMcp();
  const world = await startMcpWorld(
    {
      remote: {
        type: 'http',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own `${VAR}` syntax.
        url: '${REMOTE_URL}',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own `${VAR}` syntax.
        headers: { Authorization: 'Bearer ${REMOTE_TOKEN}', 'X-Team': '${REMOTE_TEAM:-switchboard}' },
      },
    },
    { env: { REMOTE_URL: remote.url, REMOTE_TOKEN: TOKEN } },
  );
  return { world, remote };
}

describe('MCP tools over Streamable HTTP', () => {
  it('sends the expanded headers on every request and runs the tools through a session', async () => {
    const { world, remote } = await startRemoteWorld();
    const { h } = world;
    await turnCalling(h, 'mcp__remote__echo', { text: 'hi' }, 'It said hi.');
    expect(toolResults(h.fakeAnthropic.requests)).toEqual([{ text: 'echo: hi', isError: false }]);
    expect(remote.headers.length).toBeGreaterThan(1);
    for (const seen of remote.headers) {
      expect(seen.authorization).toBe(`Bearer ${TOKEN}`);
      expect(seen['x-team']).toBe('switchboard');
    }
  });

  it('ends its session with a DELETE when the bot stops', async () => {
    const { world, remote } = await startRemoteWorld();
    await turnCalling(world.h, 'mcp__remote__echo', { text: 'bye' }, 'Bye.');
    expect(remote.methods).not.toContain('DELETE');
    await world.mcp.close();
    expect(remote.methods.at(-1)).toBe('DELETE');
  });

  it('takes a tool list changed during a turn only from the next turn, keeping the turn’s tool bytes', async () => {
    const { world, remote } = await startRemoteWorld();
    const { h, mcp } = world;
    h.fakeAnthropic.enqueue(
      { text: 'Holding.', toolUse: [{ name: 'mcp__remote__hold', input: {} }] },
      { text: 'Released.' },
    );
    await h.message('hold on');
    await h.until(() => remote.holding(), 'hold call arrived');
    remote.addTool('shout');
    const connection = mcp.connection('remote');
    await h.until(() => connection?.tools.some((t) => t.name === 'shout') === true, 'list_changed seen');
    remote.release();
    await h.settle();
    const [first, second] = h.fakeAnthropic.requests;
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(toolNames(second)).not.toContain('mcp__remote__shout');
    await h.message('next turn');
    await h.settle();
    // The conversation's tools stay as first sent; the new one is added in a system message at the end.
    expect(JSON.stringify(h.fakeAnthropic.requests[2].tools)).toBe(JSON.stringify(first.tools));
    expect(toolChanges(h.fakeAnthropic.requests[2])).toEqual(['+mcp__remote__shout']);
    expect(await h.ask('status')).toContain('MCP server remote: connected, 4 tools');
  });
});
