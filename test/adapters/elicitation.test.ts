/**
 * A question from an MCP server (elicitation) on the platforms, through the
 * ready bot (`SWITCHBOARD_MCP_CONFIG` naming the published
 * server-everything) and the real SDKs against the fakes: on Telegram the
 * person types the text field and answers the rest with buttons (their
 * callback_data within the 64-byte limit the fake enforces); on Slack
 * another person's press is refused privately and the requester declines.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolResults } from '../fakes/anthropic.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../fakes/slack/index.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { EVERYTHING } from '../fixtures/mcp/published.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startSlackApp } from './slack/app.js';
import { ANN, createAppWorld } from './telegram/app-harness.js';

const ASK = 'mcp__everything__trigger-elicitation-request';
const cleanups = useCleanups();

/** The MCP file naming server-everything over stdio, its tools allowed without asking. */
async function mcpFile(folder: string): Promise<string> {
  const file = join(folder, 'mcp.json');
  const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'], permission: 'inspect' };
  await writeFile(file, JSON.stringify({ mcpServers: { everything } }));
  return file;
}

describe('a question from an MCP server on Telegram', () => {
  it('is answered by a reply and buttons, and the answers reach the server', async () => {
    const w = await createAppWorld();
    cleanups.push(() => w.close());
    await w.start({ SWITCHBOARD_MCP_CONFIG: await mcpFile(w.root) });
    w.anthropic.enqueue({ toolUse: [{ name: ASK, input: {} }] }, { text: 'Thanks, noted.' });
    const dm = { chatId: 11, user: ANN };
    w.telegram.pushUpdate(messageUpdate(dm, 'ask me'));
    const question = () => w.telegram.botMessages(11).find((m) => m.text.startsWith('❓'));
    const buttons = () => question()?.replyMarkup?.inline_keyboard.flat() ?? [];
    const asking = (label: string) =>
      question()?.text.includes(`\n\n${label}`) === true && buttons().length > 0;
    await w.telegram.waitFor(() => asking('String'), 15_000);
    w.telegram.pushUpdate(messageUpdate(dm, 'Ann Example'));
    await w.telegram.waitFor(() => asking('Boolean'), 15_000);
    const press = (label: string) => {
      const button = buttons().find((b) => b.text === label || b.text.startsWith(`${label} (`)) as {
        callback_data: string;
      };
      w.telegram.pushUpdate(callbackUpdate(dm, question()?.messageId as number, button.callback_data));
    };
    press('Yes');
    // Every other field is optional: Skip takes the server's suggestion.
    for (const label of [
      'String with default',
      'String with email format',
      'String with uri format',
      'String with date format',
      'Integer',
      'Number in range 1-1000',
      'Untitled Single Select Enum',
      'Untitled Multiple Select Enum',
      'Titled Single Select Enum',
      'Titled Multiple Select Enum',
    ]) {
      await w.telegram.waitFor(() => asking(label), 15_000);
      press('Skip');
    }
    await w.telegram.waitFor(() => asking('Legacy Titled Single Select Enum'), 15_000);
    press('Birds');
    await w.telegram.waitFor(
      () => w.telegram.botMessages(11).some((m) => m.text === 'Thanks, noted.'),
      15_000,
    );
    const result = toolResults(w.anthropic.requests).at(-1)?.text ?? '';
    expect(JSON.parse(result.slice(result.indexOf('{')))).toMatchObject({
      action: 'accept',
      content: { name: 'Ann Example', check: true, integer: 42, legacyTitledEnum: 'pet-3' },
    });
    expect(question()?.text).toContain('✅ Answered by Ann');
    expect(question()?.replyMarkup).toBeUndefined();
    expect([...w.telegram.state.callbacks.values()].every((c) => c.answered !== undefined)).toBe(true);
  });
});

describe('a question from an MCP server on Slack', () => {
  it('refuses another person privately and is declined by the requester', async () => {
    const f: FakeSlack = await startFakeSlack();
    cleanups.push(() => f.close());
    const w = await createAppWorld();
    cleanups.push(() => w.close());
    w.anthropic.enqueue({ toolUse: [{ name: ASK, input: {} }] }, { text: 'All right, no details.' });
    const app = await startSlackApp(f, w.anthropic, w.root, {
      SWITCHBOARD_MCP_CONFIG: await mcpFile(w.root),
    });
    cleanups.push(() => app.stop());
    const { ts } = await f.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> ask me' });
    const question = () => f.botMessages('C1', ts).find((m) => visibleText(m).startsWith('❓'));
    await f.until(
      () => visibleText(question() ?? ({ text: '' } as never)).includes('[Decline]'),
      15_000,
      'question',
    );
    const prompt = question()!;
    const decline = (prompt.blocks ?? [])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.text.text === 'Decline');
    await f.pressButton({ user: 'U2', channel: 'C1', messageTs: prompt.ts, value: decline.value });
    await f.until(() => f.state.ephemerals.some((e) => e.user === 'U2'), 5000, 'refusal');
    expect(f.state.ephemerals.find((e) => e.user === 'U2')?.text).toMatch(
      /^Only \S+ or an admin can answer this\.$/,
    );
    await f.pressButton({ user: 'U1', channel: 'C1', messageTs: prompt.ts, value: decline.value });
    await f.until(() => f.botTexts('C1', ts).includes('All right, no details.'), 15_000, 'reply');
    expect(toolResults(w.anthropic.requests).at(-1)?.text).toContain('User declined');
    await f.until(() => !visibleText(question()!).includes('[Decline]'), 10_000, 'outcome');
    expect(visibleText(question()!)).toMatch(/🚫 Declined by \S+$/);
  });
});
