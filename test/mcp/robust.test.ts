/**
 * MCP servers that fail: one that crashes is reported and reconnected (its
 * tools come back byte for byte), one that never starts is left out while
 * the bot runs, a stopped turn cancels the call in flight, and a server's
 * own children end with it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { USERS } from '../helpers/bot-harness.js';
import {
  approvalPrompt,
  button,
  closingMcpWorlds,
  notesEntry,
  toolChanges,
  toolNames,
  turnCalling,
} from './helpers.js';

const startMcpWorld = closingMcpWorlds();

/** True while `pid` runs; an exited process nobody has reaped yet (a zombie) counts as gone. */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

describe('MCP servers that fail', () => {
  it('reports a crashed server in /status, leaves its tools out, reconnects after the backoff and offers the same tool bytes again', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h, mcp, mcpClock } = world;
    const notes = mcp.connection('notes');
    await h.message('before');
    await h.settle();
    const before = JSON.stringify(h.fakeAnthropic.requests[0].tools);

    process.kill(notes?.pid as number, 'SIGKILL');
    await h.until(() => notes?.state === 'down', 'server down');
    // Why it is down is for an admin; everyone else sees that it is.
    expect(await h.ask('status', '', { user: USERS.admin })).toMatch(
      /MCP server notes: down, its tools are left out until it reconnects \(the connection closed\)/,
    );
    expect(await h.ask('status')).toMatch(
      /MCP server notes: down, its tools are left out until it reconnects$/m,
    );
    await h.message('while down');
    await h.settle();
    // The tools sent stay the conversation's; their removal is said in a system message at the end.
    expect(JSON.stringify(h.fakeAnthropic.requests[1].tools)).toBe(before);
    const removed = toolChanges(h.fakeAnthropic.requests[1]);
    expect(removed.length).toBeGreaterThan(0);
    expect(removed.every((c) => c.startsWith('-mcp__notes__'))).toBe(true);

    // The first retry is a second later on the servers' clock.
    await mcpClock.advance(999);
    expect(notes?.state).toBe('down');
    await mcpClock.advance(1);
    await h.until(() => notes?.state === 'connected', 'server reconnected');
    expect(await h.ask('status')).toContain('MCP server notes: connected, 11 tools');
    await turnCalling(h, 'mcp__notes__lookup', { key: 'k2' }, 'Found it.');
    expect(JSON.stringify(h.fakeAnthropic.requests[2].tools)).toBe(before);
    // Back: added again at the end, after the removals.
    expect(toolChanges(h.fakeAnthropic.requests[2]).filter((c) => c.startsWith('+'))).toContain(
      '+mcp__notes__lookup',
    );
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({
      text: 'note k2: buy milk',
      isError: false,
    });
  });

  it('answers the model with an error naming the server when it died during the turn', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h, mcp } = world;
    const notes = mcp.connection('notes');
    h.fakeAnthropic.enqueue(
      { text: 'Deleting.', toolUse: [{ name: 'mcp__notes__delete_note', input: { id: 1 } }] },
      { text: 'It did not work.' },
    );
    await h.message('delete note 1');
    const prompt = await approvalPrompt(h);
    process.kill(notes?.pid as number, 'SIGKILL');
    await h.until(() => notes?.state === 'down', 'server down');
    await h.press(button(prompt, 'a:'));
    await h.settle();
    const result = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(result?.isError).toBe(true);
    expect(result?.text).toMatch(/The MCP server "notes" is not connected \(the connection closed\)/);
    expect(h.texts().join('\n')).toContain('It did not work.');
  });

  it('leaves out a server that never starts, says why in /status, and the bot and the other server work', async () => {
    const world = await startMcpWorld({ broken: { command: '/nonexistent/mcp-server' }, notes: notesEntry });
    const { h } = world;
    expect(await h.ask('status', '', { user: USERS.admin })).toMatch(
      /MCP server broken: down, its tools are left out until it reconnects \(it could not be started: .*ENOENT/,
    );
    await turnCalling(h, 'mcp__notes__lookup', { key: 'k3' }, 'Done.');
    const names = toolNames(h.fakeAnthropic.requests[0]);
    expect(names.some((n) => n.startsWith('mcp__broken__'))).toBe(false);
    expect(names).toContain('mcp__notes__lookup');
    expect(toolResults(h.fakeAnthropic.requests)).toEqual([{ text: 'note k3: buy milk', isError: false }]);
    expect(world.logs.join('\n')).toMatch(/MCP server \\"broken\\" is down/);
  });

  it('retries a failing server after 1 s, 2 s, 4 s… on its clock, never sooner', async () => {
    const world = await startMcpWorld({ broken: { command: '/nonexistent/mcp-server' } });
    const { h, mcpClock } = world;
    const retries = () =>
      world.logs
        .filter((line) => line.includes('is down'))
        .map((line) => JSON.parse(line).retryInMs as number);
    expect(retries()).toEqual([1000]);
    for (const [waited, next] of [
      [1000, [1000, 2000]],
      [2000, [1000, 2000, 4000]],
      [4000, [1000, 2000, 4000, 8000]],
    ] as const) {
      await mcpClock.advance(waited - 1);
      expect(retries()).toHaveLength(next.length - 1);
      await mcpClock.advance(1);
      await h.until(() => retries().length === next.length, 'next attempt failed');
      expect(retries()).toEqual(next);
    }
  });

  it('connects a server that offers no tools with none, instead of retrying it', async () => {
    const world = await startMcpWorld({
      prompts: { ...notesEntry, env: { NOTES_PROMPTS_ONLY: '1' } },
    });
    expect(await world.h.ask('status')).toContain('MCP server prompts: connected, 0 tools');
  });

  it('cancels the call in flight when the turn is stopped: the server sees notifications/cancelled', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h } = world;
    h.fakeAnthropic.enqueue({ text: 'Waiting.', toolUse: [{ name: 'mcp__notes__wait', input: {} }] });
    await h.message('wait for it');
    await h.until(async () => (await world.events())?.includes('started wait') === true, 'call started');
    expect(await h.ask('stop')).toMatch(/Stopped/);
    await h.until(async () => (await world.events())?.includes('cancelled wait') === true, 'call cancelled');
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(1);
  });

  it('ends the server with its whole process group when the bot stops', async () => {
    const world = await startMcpWorld({ notes: notesEntry });
    const { h, mcp } = world;
    await turnCalling(h, 'mcp__notes__sleeper', {}, 'Started.');
    const sleeper = Number(toolResults(h.fakeAnthropic.requests)[0]?.text);
    const server = mcp.connection('notes')?.pid as number;
    expect(alive(sleeper)).toBe(true);
    await mcp.close();
    expect(alive(server)).toBe(false);
    await h.until(() => !alive(sleeper), 'the server’s child ended');
  });
});
