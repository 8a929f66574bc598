/**
 * Work beside the chat's conversation: /btw, a side question answered while
 * a reply runs, from the same conversation prefix, and absent from the
 * conversation afterwards; /bg, a prompt run in a new session without
 * waiting for the running reply, reporting back when it ends. Real bot core,
 * sessions and provider against the fake Messages API.
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

describe('/bg', () => {
  it('runs in a session of its own while the chat is busy, and reports back under its line', async () => {
    h = await startBotHarness();
    const { promise: held, open: release } = latch();
    h.fakeAnthropic.enqueue({ text: 'The main reply.', release: held }, { text: 'Research done: 42.' });
    await h.message('main question');
    await h.until(() => h?.fakeAnthropic.log.length === 1, 'main request');
    const started = await h.ask('bg', 'research the answer');
    const id = /^Started session (\S+) in the background/.exec(started)?.[1] as string;
    expect(id).toBeTruthy();
    await h.until(() => h?.texts().some((t) => t.startsWith('🧵 Background result')) ?? false, 'result');
    // The main reply is still running: the background run did not wait for it.
    expect(h.fakeAnthropic.log[0]?.finished).toBe(false);
    expect(h.bot.stats().running).toBe(1);
    const result = h.texts().find((t) => t.startsWith('🧵 Background result')) as string;
    expect(result).toContain(`session ${id}; /resume ${id} continues it`);
    expect(result).toContain('Research done: 42.');
    expect(h.texts()).toContain('🧵 Background: research the answer');
    // A new session: its request holds only its own prompt.
    const bgRequest = h.fakeAnthropic.requests[1];
    expect(JSON.stringify(bgRequest.messages)).not.toContain('main question');
    release();
    await h.settle();
    await h.message('and?');
    await h.settle();
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).not.toContain('research the answer');
    // Resumable by its id.
    expect(await h.ask('resume', id)).toContain(id);
  });

  it('denies tools that would ask, and says so in the result', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'rm -rf build' } }] },
      { text: 'Could not clean.' },
    );
    await h.ask('bg', 'clean the build');
    await h.until(() => h?.texts().some((t) => t.startsWith('🧵 Background result')) ?? false, 'result');
    const result = h.texts().find((t) => t.startsWith('🧵 Background result')) as string;
    expect(result).toContain('Could not clean.');
    expect(result).toContain('Denied without asking, as nobody watches a background run: Bash.');
    expect(h.texts().some((t) => t.startsWith('🔐'))).toBe(false);
  });

  it('where the chat has threads, runs in a new one like any conversation and says when it ends, with a link', async () => {
    h = await startBotHarness({ threads: true });
    const { promise: held, open: release } = latch();
    h.fakeAnthropic.enqueue(
      { text: 'The main reply.', release: held },
      { text: 'Research done: 42.\nDetails follow.' },
    );
    await h.message('main question');
    await h.until(() => h?.fakeAnthropic.log.length === 1, 'main request');
    await h.ask('bg', 'research the answer');
    const opener = h.adapter
      .chatMessages(h.chat)
      .find((m) => m.text === '🧵 Background: research the answer');
    const thread = `${h.chat}:t${opener?.id}`;
    await h.until(() => h?.texts().some((t) => t.startsWith('🧵 Background done')) ?? false, 'done line');
    expect(h.texts(thread)).toEqual(['Research done: 42.\nDetails follow.']);
    expect(h.texts()).toContain(
      `🧵 Background done: Research done: 42. ([thread](<https://chat.example/test/t${opener?.id}>))`,
    );
    expect(h.fakeAnthropic.log[0]?.finished).toBe(false);
    // The thread is a conversation of its own: a reply there continues the background session.
    await h.message('go on', { chat: thread });
    await h.until(() => h?.texts(thread).includes('Alice said: go on') ?? false, 'reply in the thread');
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).toContain('research the answer');
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).not.toContain('main question');
    release();
    await h.settle();
  });
});
