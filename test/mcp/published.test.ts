/**
 * The published servers people run, as they configure them: what reaches
 * the model is as compact as what the server said (an image once, no base64
 * as text, structured output only when it adds something), a long server
 * name keeps every tool, and a tool that cannot be offered is named with
 * its reason in /tools.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { pngBase64 } from '../fakes/images.js';
import { everythingStdio, filesystemEntry } from '../fixtures/mcp/published.js';
import { USERS } from '../helpers/bot-harness.js';
import { useCleanups } from '../helpers/cleanups.js';
import { closingMcpWorlds, toolNames, turnCalling } from './helpers.js';

const startMcpWorld = closingMcpWorlds();
const cleanups = useCleanups();
const LONG_NAME = 'everything-server-with-a-forty-char-name';

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
function lastToolResultBlocks(requests: any[]): Array<{ type: string; text?: string }> {
  const block = requests
    .at(-1)
    .messages.at(-1)
    .content.find((b: { type: string }) => b.type === 'tool_result');
  return typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : block.content;
}

describe('published MCP servers', () => {
  it('offers every callable tool of a server with a 40-character name, and names the one left out in /tools', async () => {
    expect(LONG_NAME).toHaveLength(40);
    const { h } = await startMcpWorld({ [LONG_NAME]: everythingStdio });
    const tools = await h.ask('tools');
    expect(tools).toContain(`MCP server ${LONG_NAME} (connected, 14 tools, 1 left out)`);
    expect(tools).toMatch(/left out: simulate-research-query, it runs only as a task/);
    expect(await h.ask('status', '', { user: USERS.admin })).toContain(
      'connected, 14 tools, 1 left out (see /tools)',
    );
    const structured = (await h.ask('tools')).match(/(mcp__[^,\s]*__get-struct[^,\s]*)/)?.[1] as string;
    await turnCalling(h, structured, { location: 'New York' }, 'Rainy.');
    // The fake API refuses any tool name or schema the real one would; all 14 went through (read_resource included, and trigger-elicitation-request, which server-everything offers only to a client that answers questions).
    expect(toolNames(h.fakeAnthropic.requests[0]).filter((n) => n.startsWith('mcp__'))).toHaveLength(14);
    const result = toolResults(h.fakeAnthropic.requests).at(-1);
    // The text block already is the structured content: it is sent once.
    expect(JSON.parse(result?.text as string)).toEqual({
      temperature: 33,
      conditions: 'Cloudy',
      humidity: 82,
    });
  });

  it('sends server-everything’s tiny image once, as an image block', async () => {
    const { h } = await startMcpWorld({ everything: everythingStdio });
    await turnCalling(h, 'mcp__everything__get-tiny-image', {}, 'A tiny image.');
    const blocks = lastToolResultBlocks(h.fakeAnthropic.requests);
    expect(blocks.filter((b) => b.type === 'image')).toHaveLength(1);
    expect(blocks.map((b) => b.text ?? '').join('').length).toBeLessThan(200);
  });

  it('sends server-filesystem’s read_media_file image once, without its base64 as structured text', async () => {
    const folder = await cleanups.tempRoot('mcp-fs');
    await writeFile(join(folder, 'chart.png'), Buffer.from(pngBase64(64, 64, 20_000), 'base64'));
    const { h } = await startMcpWorld({ files: filesystemEntry(folder) });
    await turnCalling(h, 'mcp__files__read_media_file', { path: join(folder, 'chart.png') }, 'A chart.');
    const blocks = lastToolResultBlocks(h.fakeAnthropic.requests);
    expect(blocks.filter((b) => b.type === 'image')).toHaveLength(1);
    expect(JSON.stringify(blocks.filter((b) => b.type !== 'image')).length).toBeLessThan(200);
  });

  it('reads a text file through server-filesystem and refuses one outside its folder', async () => {
    const folder = await cleanups.tempRoot('mcp-fs');
    await writeFile(join(folder, 'notes.txt'), 'buy milk\n');
    const { h } = await startMcpWorld({ files: filesystemEntry(folder) });
    await turnCalling(h, 'mcp__files__read_text_file', { path: join(folder, 'notes.txt') }, 'Milk.');
    expect(toolResults(h.fakeAnthropic.requests).at(-1)).toEqual({ text: 'buy milk\n', isError: false });
    await turnCalling(h, 'mcp__files__read_text_file', { path: '/etc/hostname' }, 'Not allowed.');
    const refused = toolResults(h.fakeAnthropic.requests).at(-1);
    expect(refused?.isError).toBe(true);
    expect(refused?.text).toMatch(/outside allowed directories/i);
  });
});
