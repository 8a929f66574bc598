import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
const lastUserText = (body: any): string =>
  body.messages
    .at(-1)
    .content.findLast(
      (b: { type: string; text: string }) => b.type === 'text' && b.text.startsWith('[Alice]'),
    )?.text;

/** Starts a turn that streams "Partial" and then stalls until aborted. */
async function stalledTurn(harness: BotHarness, text = 'long task'): Promise<string> {
  harness.fakeAnthropic.enqueue({ text: ['Partial', ' rest'], stallAfterChunks: 1 });
  const n = harness.fakeAnthropic.log.length;
  const id = await harness.message(text);
  await harness.until(
    () =>
      harness.fakeAnthropic.log[n]?.chunksSent === 1 &&
      harness.adapter.chatMessages(harness.chat).some((m) => m.text.includes('Partial')),
    'partial reply visible',
  );
  return id;
}

describe('bot core: /stop, Stop button, edits', () => {
  it('/stop aborts the running turn and drops the queued messages, saying how many', async () => {
    h = await startBotHarness();
    await stalledTurn(h);
    await h.message('queued 1');
    await h.message('queued 2');
    expect(await h.ask('stop', 'now please')).toBe(say.stopped(2, true));
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(1);
    expect(h.fakeAnthropic.log[0]?.closedEarly).toBe(true);
    const reply = h.adapter.chatMessages(h.chat)[0];
    expect(reply?.text).toContain('Partial');
    expect(reply?.text).toContain(say.stoppedNote);
    expect(reply?.buttons).toEqual([]);
    // The session stays usable, and the model is told its reply was cut off.
    await h.message('next');
    await h.settle();
    expect(h.texts().at(-1)).toBe('Alice said: next');
    expect(JSON.stringify(h.fakeAnthropic.requests[1].messages)).toContain('Partial');
    expect(await h.ask('stop')).toBe(say.nothingToStop);
  });

  it('the Stop button on the streaming reply stops it at once', async () => {
    h = await startBotHarness();
    await stalledTurn(h);
    const live = h.adapter.chatMessages(h.chat).find((m) => m.buttons.flat().some((b) => b.label === 'Stop'));
    expect(live).toBeDefined();
    const stop = live?.buttons.flat().find((b) => b.label === 'Stop')?.payload as string;
    expect(stop).toMatch(/^x:[0-9a-z]+$/);
    expect(await h.press(stop)).toEqual([say.stopping]);
    await h.settle();
    expect(h.fakeAnthropic.log[0]?.closedEarly).toBe(true);
    expect(h.adapter.messages.get(live?.id ?? '')?.buttons).toEqual([]);
    expect(h.texts().join('\n')).toContain(say.stoppedNote);
    expect(await h.press(stop)).toEqual([say.alreadyFinished]);
  });

  it("the platform's stop control (StopEvent) stops the turn too", async () => {
    h = await startBotHarness();
    await stalledTurn(h);
    await h.deliver({ type: 'stop', chat: h.chat, user: { id: 'alice', name: 'Alice' } });
    await h.settle();
    expect(h.fakeAnthropic.log[0]?.closedEarly).toBe(true);
    expect(h.texts()).toContain(say.stopped(0, true));
  });

  it('an edit of the message that started the running turn aborts only that turn and answers the edited text next', async () => {
    h = await startBotHarness();
    const first = await stalledTurn(h, 'original question');
    await h.message('after');
    await h.edit(first, 'edited question');
    await h.settle();
    expect(h.fakeAnthropic.requests.map(lastUserText)).toEqual([
      '[Alice] original question',
      '[Alice] edited question',
      '[Alice] after',
    ]);
    expect(h.texts()).toContain('Alice said: edited question');
    expect(h.texts().at(-1)).toBe('Alice said: after');
  });

  it('an edit of a message that brought a file answers the new text without saving or sending the file twice', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue({ text: ['Partial', ' rest'], stallAfterChunks: 1 });
    const csv = Buffer.from('a,b\n1,2\n');
    const first = await h.message('sum this', {
      attachments: [{ kind: 'document', name: 'data.csv', mediaType: 'text/csv', bytes: csv }],
    });
    await h.until(() => h?.fakeAnthropic.log[0]?.chunksSent === 1, 'first reply streaming');
    await h.edit(first, 'average this');
    await h.settle();
    expect(h.fakeAnthropic.requests.map(lastUserText)).toEqual(['[Alice] sum this', '[Alice] average this']);
    // The file stays in the conversation once (with the interrupted message) and in the workspace once.
    const second = JSON.stringify(h.fakeAnthropic.requests[1].messages);
    expect(second.split('a,b\\n1,2\\n').length - 1).toBe(1);
    expect(await readdir(join(h.dirs.workspace, 'uploads'))).toEqual([expect.stringMatching(/-data\.csv$/)]);
  });

  it('an edit of a queued message replaces its text; edits of old messages are ignored', async () => {
    h = await startBotHarness();
    const old = await h.message('old one');
    await h.settle();
    h.fakeAnthropic.enqueue({ text: ['Slow', ' but', ' sure'], chunkDelayMs: 20 });
    await h.message('running');
    const queued = await h.message('typo');
    await h.edit(queued, 'fixed');
    await h.edit(old, 'rewritten history');
    await h.settle();
    expect(h.fakeAnthropic.requests.map(lastUserText)).toEqual([
      '[Alice] old one',
      '[Alice] running',
      '[Alice] fixed',
    ]);
    expect(h.texts().at(-1)).toBe('Alice said: fixed');
  });
});
