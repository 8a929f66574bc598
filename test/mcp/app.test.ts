/**
 * The ready bot as `npm start` assembles it (loadConfig, then
 * startSwitchboard) with SWITCHBOARD_MCP_CONFIG set: the real Telegram
 * adapter against the fake Bot API, the fake Messages API, and the stdio
 * fixture server started by the bot itself and ended with it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ANN, type AppWorld, createAppWorld } from '../adapters/telegram/app-harness.js';
import { toolResults } from '../fakes/anthropic.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { NOTES_SERVER } from './helpers.js';

let world: AppWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('the ready bot with MCP servers', () => {
  it('starts the configured servers, gives their tools to the chat, and ends them when it stops', async () => {
    world = await createAppWorld();
    const file = join(world.root, 'mcp.json');
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER] } } }),
    );
    const app = await world.start({ SWITCHBOARD_MCP_CONFIG: file });
    expect(app.mcp?.servers().map((s) => [s.name, s.state])).toEqual([['notes', 'connected']]);
    const pid = app.mcp?.connection('notes')?.pid as number;

    world.anthropic.enqueue(
      { text: 'Looking.', toolUse: [{ name: 'mcp__notes__lookup', input: { key: 'tg' } }] },
      { text: 'Your note says buy milk.' },
    );
    world.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, 'what does my note say?'));
    await world.telegram.waitFor(
      () => world?.telegram.botMessages(11).some((m) => m.text.includes('Your note says buy milk.')) === true,
      15_000,
    );
    expect(toolResults(world.anthropic.requests)).toEqual([{ text: 'note tg: buy milk', isError: false }]);
    expect(app.lines.join('\n')).toMatch(/"mcp":\["notes: connected"\]/);

    await app.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
