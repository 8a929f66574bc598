/**
 * Messages written while a reply runs, by busy mode: steered into the
 * running turn's next model request, queued for a turn of their own, or
 * interrupting it. Real bot core, session and provider against the fake
 * Messages API.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';
import { latch } from '../helpers/latch.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Every content block of a parsed request body's messages. */
const blocks = (request: { messages: Array<{ content: unknown }> }): Array<{ text?: string }> =>
  request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));

/** A turn whose first model reply asks to read notes.txt and is held open until `release` is called. */
async function toolTurnHeld(harness: BotHarness): Promise<() => void> {
  await mkdir(harness.dirs.workspace, { recursive: true });
  await writeFile(join(harness.dirs.workspace, 'notes.txt'), 'remember the milk\n');
  const { promise: held, open: release } = latch();
  harness.fakeAnthropic.enqueue(
    { text: 'Let me look.', toolUse: [{ name: 'Read', input: { file_path: 'notes.txt' } }], release: held },
    { text: 'Done, on the other branch.' },
  );
  await harness.message('what is in notes.txt?');
  await harness.until(() => harness.fakeAnthropic.log.length === 1, 'first request');
  return release;
}

describe('busy modes', () => {
  it('steer (the default): a message sent during a tool loop joins the next model request, with no turn of its own', async () => {
    h = await startBotHarness();
    const release = await toolTurnHeld(h);
    await h.message('no, use the other branch', { user: USERS.bob });
    release();
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(2);
    const second = h.fakeAnthropic.requests[1];
    // After the tool result, as the person's message, at the end of the request.
    const last = second.messages.at(-1);
    expect(last.role).toBe('user');
    expect(last.content.map((b: { type: string }) => b.type)).toEqual(['tool_result', 'text']);
    expect(last.content[1].text).toBe('[Bob] no, use the other branch');
    expect(h.texts()).toContain(say.steered);
    expect(h.texts().join('\n')).toContain('Done, on the other branch.');
    // It stays in the session's history, in order.
    await h.message('thanks');
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(3);
    expect(JSON.stringify(h.fakeAnthropic.requests[2].messages)).toContain('no, use the other branch');
  });

  it('steer: a message sent while the turn writes its final answer is queued as its own turn', async () => {
    h = await startBotHarness();
    const { promise: held, open: release } = latch();
    h.fakeAnthropic.enqueue({ text: 'All done.', release: held });
    await h.message('finish up');
    await h.until(() => h?.fakeAnthropic.log.length === 1, 'first request');
    await h.message('one more thing');
    release();
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(2);
    expect(
      blocks(h.fakeAnthropic.requests[0]).some((b: { text?: string }) => b.text?.includes('one more')),
    ).toBe(false);
    expect(h.texts()).not.toContain(say.steered);
    expect(h.texts().at(-1)).toBe('Alice said: one more thing');
  });

  it('queue: /busy queue keeps today’s behaviour', async () => {
    h = await startBotHarness();
    expect(await h.ask('busy', 'queue')).toMatch(/^Busy mode is now queue/);
    const release = await toolTurnHeld(h);
    await h.message('no, use the other branch');
    release();
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(3);
    expect(JSON.stringify(h.fakeAnthropic.requests[1].messages)).not.toContain('other branch');
    expect(h.texts().at(-1)).toBe('Alice said: no, use the other branch');
  });

  it('interrupt: the running reply stops and the new message runs', async () => {
    h = await startBotHarness();
    expect(await h.ask('busy', 'interrupt')).toMatch(/^Busy mode is now interrupt/);
    h.fakeAnthropic.enqueue({ text: ['Partial', ' rest'], stallAfterChunks: 1 });
    await h.message('long task');
    await h.until(() => h?.texts().some((t) => t.includes('Partial')) ?? false, 'partial reply');
    await h.message('actually, something else');
    await h.settle();
    expect(h.fakeAnthropic.log[0]?.closedEarly).toBe(true);
    expect(h.texts().join('\n')).toContain(say.interruptedNote);
    expect(h.texts().at(-1)).toBe('Alice said: actually, something else');
    expect(await h.ask('busy')).toMatch(/^Busy mode here is interrupt/);
    expect(await h.ask('busy', 'sometimes')).toMatch(/is not a busy mode/);
  });

  it('/stop counts a message waiting to join the turn as dropped', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue({ text: ['Partial', ' rest'], stallAfterChunks: 1 });
    await h.message('long task');
    await h.until(() => h?.texts().some((t) => t.includes('Partial')) ?? false, 'partial reply');
    await h.message('and this');
    expect(await h.ask('stop')).toBe(say.stopped(1, true));
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(1);
  });
});
