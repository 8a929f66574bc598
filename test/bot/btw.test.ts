/**
 * /btw: a side question answered while a reply runs, from the same
 * conversation prefix, and absent from the conversation afterwards. Real bot
 * core, session and provider against the fake Messages API.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';
import { latch } from '../helpers/latch.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('/btw', () => {
  it('is answered while a turn runs, from the same prefix, and stays out of the history', async () => {
    h = await startBotHarness();
    await mkdir(h.dirs.workspace, { recursive: true });
    await writeFile(join(h.dirs.workspace, 'notes.txt'), 'remember the milk\n');
    const { promise: held, open: release } = latch();
    h.fakeAnthropic.enqueue(
      { text: 'Let me look.', toolUse: [{ name: 'Read', input: { file_path: 'notes.txt' } }], release: held },
      // The side question's answer: it arrives while the first request is still held open.
      { text: 'I am reading notes.txt for you.' },
      { text: 'It says: remember the milk.' },
    );
    await h.message('what is in notes.txt?');
    await h.until(() => h?.fakeAnthropic.log.length === 1, 'first request');
    expect(await h.ask('btw', 'what are you doing right now?')).toBe('💬 I am reading notes.txt for you.');
    // The turn is still running: its reply has not finished.
    expect(h.texts().join('\n')).not.toContain('remember the milk.');
    const [turn, side] = h.fakeAnthropic.requests;
    // Same system prompt, tools and conversation, then the question: the cached prefix is reused.
    expect(side.system).toEqual(turn.system);
    expect(side.tools).toEqual(turn.tools);
    // Blocks without their cache breakpoints (each request marks its own last block).
    const blocksOf = (request: { messages: Array<{ content: Array<Record<string, unknown>> }> }) =>
      request.messages.flatMap((m) => m.content.map(({ cache_control: _mark, ...block }) => block));
    const sideBlocks = blocksOf(side);
    const turnBlocks = blocksOf(turn);
    expect(sideBlocks.slice(0, turnBlocks.length)).toEqual(turnBlocks);
    expect(sideBlocks.at(-1)?.text).toMatch(/^\[Alice\] what are you doing right now\?\n\n\(A side question/);
    release();
    await h.settle();
    expect(h.texts().join('\n')).toContain('It says: remember the milk.');
    await h.message('thanks');
    await h.settle();
    const later = JSON.stringify(h.fakeAnthropic.requests.slice(2).map((r) => r.messages));
    expect(later).not.toContain('what are you doing');
    expect(later).not.toContain('I am reading notes.txt for you.');
  });

  it('says so when the chat has no conversation yet, or no question is given', async () => {
    h = await startBotHarness();
    expect(await h.ask('btw', 'anything?')).toMatch(/^Nothing to ask about yet/);
    expect(await h.ask('btw')).toMatch(/^Usage: \/btw <question>/);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });
});
