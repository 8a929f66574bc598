/**
 * What published servers ask of the client and offer beyond tools: the
 * workspace as their root (server-filesystem started with no folder works
 * in it), resource links opened with read_resource (server-everything),
 * server log messages at warning and above in the bot's log, and one log
 * line per call.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { everythingStdio, FILESYSTEM } from '../fixtures/mcp/published.js';
import { useCleanups } from '../helpers/cleanups.js';
import { closingMcpWorlds, notesEntry, turnCalling } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
const cleanups = useCleanups();
const parsed = (logs: string[]) => logs.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('MCP beyond tools', () => {
  it('offers the workspace as the root: server-filesystem with no folder of its own works in it', async () => {
    const workspace = await cleanups.tempRoot('mcp-roots');
    await writeFile(join(workspace, 'plan.md'), 'ship it\n');
    const world = await startMcpWorld(
      { files: { command: process.execPath, args: [FILESYSTEM] } },
      { mcp: { workspace } },
    );
    const { h } = world;
    await h.until(
      () => world.logs.some((line) => line.includes('Updated allowed directories from MCP roots')),
      'roots taken',
    );
    await turnCalling(h, 'mcp__files__read_text_file', { path: join(workspace, 'plan.md') }, 'Ship it.');
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({ text: 'ship it\n', isError: false });
  });

  it('opens a resource link a tool returned with read_resource, as a read-only tool', async () => {
    const { h } = await startMcpWorld({ everything: everythingStdio });
    await turnCalling(h, 'mcp__everything__get-resource-links', { count: 2 }, 'Two links.');
    const links = toolResults(h.fakeAnthropic.requests).at(-1)?.text as string;
    const uri = links.match(/\[resource link: Text Resource 2 (\S+) \(text\/plain\)/)?.[1] as string;
    expect(uri).toBeTruthy();
    // Read-only: it runs without an approval prompt in default mode.
    await turnCalling(h, 'mcp__everything__read_resource', { uri }, 'Read it.');
    const read = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(read?.isError).toBe(false);
    expect(read?.text).toContain(`[resource ${uri}]`);
    expect(read?.text).toMatch(/Resource 2/);
  });

  it('logs a server’s warnings (not its info lines) and one line per call with server, tool, outcome and ms', async () => {
    const world = await startMcpWorld({
      notes: { ...notesEntry, env: { ...notesEntry.env, NOTES_LOGGING: '1' } },
    });
    await turnCalling(world.h, 'mcp__notes__log_twice', {}, 'Logged.');
    await world.h.until(() => world.logs.some((line) => line.includes('disk almost full')), 'warning logged');
    const lines = parsed(world.logs);
    expect(lines.find((l) => String(l.msg).includes('disk almost full'))).toMatchObject({
      level: 40,
      server: 'notes',
      mcpLevel: 'warning',
      source: 'disk',
    });
    expect(world.logs.join('\n')).not.toContain('an info line');
    const call = lines.find((l) => l.msg === 'MCP call');
    expect(call).toMatchObject({ server: 'notes', tool: 'log_twice', outcome: 'ok' });
    expect(typeof call?.ms).toBe('number');
  });
});
