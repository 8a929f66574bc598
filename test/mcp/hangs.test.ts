/**
 * No call waits forever: the published server-everything, over stdio and
 * Streamable HTTP, stops answering or is killed in the middle of a call and
 * between calls; the model gets an error result, /status says the server
 * is down, and the turn goes on.
 */

import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { everythingStdio, startEverythingHttp } from '../fixtures/mcp/published.js';
import { USERS } from '../helpers/bot-harness.js';
import { useCleanups } from '../helpers/cleanups.js';
import { closingMcpWorlds, type McpWorld, turnCalling } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
const cleanups = useCleanups();
const TIMEOUT_MS = 10_000;
const LONG = 'mcp__everything__trigger-long-running-operation';

/** Starts a turn whose one call runs `seconds` with one progress step, and waits until the server has it. */
async function startLongCall(world: McpWorld, seconds: number): Promise<void> {
  const { h, mcpClock } = world;
  h.fakeAnthropic.enqueue(
    { text: 'Running it.', toolUse: [{ name: LONG, input: { duration: seconds, steps: 1 } }] },
    { text: 'That did not work.' },
  );
  await h.message('run the long operation');
  // The call's silence timer is the only timer on the servers' clock while the server is up.
  await h.until(() => mcpClock.pending === 1, 'call in flight');
}

/** The model got an error saying the server did not answer `what`, and the server is down. */
async function expectGaveUp(world: McpWorld, what: string): Promise<void> {
  await world.h.settle();
  expect(toolResults(world.h.fakeAnthropic.requests).at(-1)).toEqual({
    text: expect.stringContaining(`did not answer ${what} for 10 s`),
    isError: true,
  });
  expect(world.mcp.connection('everything')?.state).toBe('down');
}

function everythingOverStdio(): Promise<McpWorld> {
  return startMcpWorld({ everything: everythingStdio }, { mcp: { callTimeoutMs: TIMEOUT_MS } });
}

async function everythingOverHttp(): Promise<{ world: McpWorld; kill: () => Promise<void>; pid: number }> {
  const server = await startEverythingHttp();
  cleanups.push(() => server.kill());
  const world = await startMcpWorld(
    { everything: { type: 'http', url: server.url } },
    { mcp: { callTimeoutMs: TIMEOUT_MS } },
  );
  return { world, kill: () => server.kill(), pid: server.pid };
}

describe('progress from an MCP server', () => {
  it('shows it in the status line and lets a long call run past the timeout while it comes', async () => {
    const world = await everythingOverStdio();
    const { h, mcp, mcpClock } = world;
    h.fakeAnthropic.enqueue(
      { text: 'Running it.', toolUse: [{ name: LONG, input: { duration: 1.5, steps: 3 } }] },
      { text: 'Finished.' },
    );
    await h.message('run the long operation');
    const shown = (text: string) => h.adapter.ops.some((op) => op.text?.includes(text) === true);
    for (const step of ['⏳ everything: 33%', '⏳ everything: 66%']) {
      await h.until(() => shown(step), step);
      // Each notification starts the silence over: together these waits pass the timeout.
      await mcpClock.advance(TIMEOUT_MS - 1);
      expect(mcp.connection('everything')?.state).toBe('connected');
    }
    await h.settle();
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({
      text: 'Long running operation completed. Duration: 1.5 seconds, Steps: 3.',
      isError: false,
    });
  });
});

describe('an MCP server that stops answering', () => {
  it('fails a stdio call after the timeout of silence, marks the server down and restarts it', async () => {
    const world = await everythingOverStdio();
    const { h, mcp, mcpClock } = world;
    const everything = mcp.connection('everything');
    await startLongCall(world, 600);
    await mcpClock.advance(TIMEOUT_MS - 1);
    expect(everything?.state).toBe('connected');
    await mcpClock.advance(1);
    await h.settle();
    const result = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(result).toEqual({
      text: expect.stringContaining(
        'Error: The MCP server "everything" did not answer trigger-long-running-operation for 10 s',
      ),
      isError: true,
    });
    expect(h.texts().join('\n')).toContain('That did not work.');
    expect(await h.ask('status', '', { user: USERS.admin })).toMatch(
      /MCP server everything: down, .*it did not answer trigger-long-running-operation for 10 s/,
    );
    await mcpClock.advance(1_000);
    await h.until(() => everything?.state === 'connected', 'restarted');
  });

  it('fails a stdio call to a server that stopped between calls (SIGSTOP)', async () => {
    const world = await everythingOverStdio();
    const { h, mcp, mcpClock } = world;
    const pid = mcp.connection('everything')?.pid as number;
    process.kill(pid, 'SIGSTOP');
    cleanups.push(() => process.kill(pid, 'SIGKILL'));
    h.fakeAnthropic.enqueue(
      { text: 'Echo.', toolUse: [{ name: 'mcp__everything__echo', input: { message: 'hi' } }] },
      { text: 'No echo.' },
    );
    await h.message('echo hi');
    await h.until(() => mcpClock.pending === 1, 'call in flight');
    await mcpClock.advance(TIMEOUT_MS);
    await expectGaveUp(world, 'echo');
  });

  it('fails an HTTP call whose server is killed mid-call, and says so in /status', async () => {
    const { world, kill } = await everythingOverHttp();
    const { h, mcp } = world;
    await startLongCall(world, 120);
    await kill();
    await h.until(() => mcp.connection('everything')?.state === 'down', 'server down', 100);
    await h.settle();
    const result = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(result?.isError).toBe(true);
    expect(result?.text).toContain('The MCP server "everything" is not connected');
    expect(h.texts().join('\n')).toContain('That did not work.');
    expect(await h.ask('status', '', { user: USERS.admin })).toMatch(/MCP server everything: down/);
  });

  it('fails an HTTP call to a server that froze mid-call (SIGSTOP: its connection stays open) after the timeout', async () => {
    const { world, pid } = await everythingOverHttp();
    const { mcp, mcpClock } = world;
    await startLongCall(world, 120);
    process.kill(pid, 'SIGSTOP');
    await mcpClock.advance(TIMEOUT_MS - 1);
    expect(mcp.connection('everything')?.state).toBe('connected');
    await mcpClock.advance(1);
    await expectGaveUp(world, 'trigger-long-running-operation');
  });

  it('fails an HTTP call to a server killed between calls at once', async () => {
    const { world, kill } = await everythingOverHttp();
    const { h, mcp } = world;
    await turnCalling(h, 'mcp__everything__echo', { message: 'one' }, 'First.');
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({ text: 'Echo: one', isError: false });
    await kill();
    await turnCalling(h, 'mcp__everything__echo', { message: 'two' }, 'Second.');
    const result = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(result?.isError).toBe(true);
    expect(mcp.connection('everything')?.state).toBe('down');
    expect(await h.ask('status', '', { user: USERS.admin })).toMatch(
      /MCP server everything: down, .*the call failed/,
    );
  });
});
