import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { type BotHarness, HARNESS_API_KEY, startBotHarness } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
const lastUserText = (body: any): string => {
  const content = body.messages.at(-1).content;
  return typeof content === 'string'
    ? content
    : content.find((b: { type: string }) => b.type === 'text')?.text;
};

describe('bot core: turns', () => {
  it('queues messages that arrive during a turn and answers them in order, one at a time', async () => {
    h = await startBotHarness();
    await h.message('one');
    await h.message('two');
    await h.message('three');
    await h.settle();
    expect(h.fakeAnthropic.requests.map(lastUserText)).toEqual([
      '[Alice] one',
      '[Alice] two',
      '[Alice] three',
    ]);
    // One at a time: each request already holds the previous answers.
    expect(h.fakeAnthropic.requests.map((b) => b.messages.length)).toEqual([1, 3, 5]);
    expect(h.texts()).toEqual(['Alice said: one', 'Alice said: two', 'Alice said: three']);
    // Once the chat is idle the core forgets it (its state lives in the stores).
    expect(h.logs.filter((l) => l.includes('idle chat forgotten'))).toHaveLength(1);
  });

  it('answers "queue full" beyond the bound and drops nothing it accepted', async () => {
    h = await startBotHarness({ queueLimit: 2 });
    h.fakeAnthropic.enqueue({ text: ['Working', ' on it'], stallAfterChunks: 1 });
    await h.message('first');
    await h.until(() => h?.fakeAnthropic.log[0]?.chunksSent === 1, 'first turn streaming');
    await h.message('q1');
    await h.message('q2');
    await h.message('q3');
    await h.until(() => h?.texts().includes(say.queueFull(2)) ?? false, 'queue full answer');
    expect(await h.ask('status')).toContain('2 queued');
    await h.command('stop');
    await h.settle();
    expect(h.texts()).toContain(say.stopped(2, true));
  });

  it('shows typing, tool activity as a status line, and the exact final text', async () => {
    h = await startBotHarness();
    await mkdir(h.dirs.workspace, { recursive: true });
    await writeFile(join(h.dirs.workspace, 'notes.txt'), 'remember the milk\n');
    h.fakeAnthropic.enqueue(
      { text: 'Let me look.', toolUse: [{ name: 'Read', input: { file_path: 'notes.txt' } }] },
      // The model "thinks" after the tool: the status line stays while it does.
      { text: ['It says:', ' remember the milk.'], stallAfterChunks: 0 },
    );
    await h.message('what is in notes.txt?');
    await h.until(() => h?.fakeAnthropic.log.length === 2, 'second request');
    await h.until(() => /✓ Read/.test(h?.texts().join('\n') ?? ''), 'tool status visible');
    const ops = h.adapter.ops.filter((o) => o.chat === h?.chat);
    expect(ops.some((o) => o.op === 'typing')).toBe(true);
    expect(h.texts().join('\n')).toContain('Let me look.');
    // The tool result reached the model.
    expect(JSON.stringify(h.fakeAnthropic.requests[1].messages)).toContain('remember the milk');
    await h.ask('stop');
    await h.settle();
    // The Stop button is gone once the reply is done, and so is the status line.
    expect(h.adapter.chatMessages(h.chat).every((m) => m.buttons.length === 0)).toBe(true);
    expect(h.texts().join('\n')).toContain(say.stoppedNote);
  });

  it('shows what the model says it is doing between tool calls as the status line', async () => {
    h = await startBotHarness();
    await mkdir(h.dirs.workspace, { recursive: true });
    await writeFile(join(h.dirs.workspace, 'notes.txt'), 'remember the milk\n');
    h.fakeAnthropic.enqueue(
      {
        thinking: ['Opening the notes first.'],
        toolUse: [{ name: 'Read', input: { file_path: 'notes.txt' } }],
      },
      // Between the tool and the answer the model writes a progress note, then goes quiet.
      {
        thinking: ['The notes mention milk; writing the answer.'],
        text: ['It says milk.'],
        stallAfterChunks: 0,
      },
    );
    await h.message('what is in notes.txt?');
    await h.until(
      () => /💭 The notes mention milk; writing the answer\./.test(h?.texts().join('\n') ?? ''),
      'progress note visible',
    );
    expect(h.fakeAnthropic.requests[0].thinking).toEqual({
      type: 'adaptive',
      display: 'updates',
      block_binding: { prefix_mismatch_behavior: 'drop_block' },
    });
    await h.ask('stop');
    await h.settle();
  });

  it('turns a provider error into one clear line in the chat, without the key, and stays usable', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue({
      error: { status: 400, type: 'invalid_request_error', message: 'prompt is malformed' },
    });
    await h.message('break it');
    await h.settle();
    const errorLine = h.texts().find((t) => t.startsWith('⚠️'));
    expect(errorLine).toBeDefined();
    expect(errorLine).not.toContain('\n');
    // Errors page: the request-id of the failed call, for a support request, in the chat and in the log.
    // (The chat text is Markdown: its underscores come escaped.)
    const requestId = /\(request (req\\?_[A-Za-z0-9]+)\)$/.exec(errorLine ?? '')?.[1]?.replace('\\', '');
    expect(requestId).toBeDefined();
    expect(h.logs.filter((l) => l.includes(requestId as string)).length).toBeGreaterThan(0);
    expect(h.texts().join('\n')).not.toContain(HARNESS_API_KEY);
    expect(h.logs.join('\n')).not.toContain(HARNESS_API_KEY);
    await h.message('and now?');
    await h.settle();
    expect(h.texts().at(-1)).toBe('Alice said: and now?');
    expect(await h.stateStore.activeTurns()).toEqual([]);
  });

  it('records the turn while it runs, for crash notices, and clears it after', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue({ text: ['Partial', ' reply'], stallAfterChunks: 1 });
    await h.message('start');
    await h.until(() => h?.fakeAnthropic.log[0]?.chunksSent === 1, 'streaming');
    const active = await h.stateStore.activeTurns();
    expect(active.map((t) => t.chat)).toEqual([h.chat]);
    expect(active[0]?.sessionId).toBe((await h.stateStore.getChat(h.chat))?.sessionId);
    await h.command('stop');
    await h.settle();
    expect(await h.stateStore.activeTurns()).toEqual([]);
  });

  it('with workspacePerChat, each chat key works in its own folder', async () => {
    h = await startBotHarness({ workspacePerChat: true, permissionMode: 'acceptEdits' });
    h.fakeAnthropic.enqueue(
      { toolUse: [{ name: 'Write', input: { file_path: 'note.txt', content: 'from chat 100' } }] },
      { text: 'Written.' },
    );
    await h.message('write a note');
    await h.settle();
    await h.message('hello', { chat: 'test:200' });
    await h.settle();
    expect(await readFile(join(h.dirs.workspace, 'test_100', 'note.txt'), 'utf8')).toBe('from chat 100');
    await expect(readFile(join(h.dirs.workspace, 'test_200', 'note.txt'), 'utf8')).rejects.toThrow();
    expect(h.texts('test:200')).toEqual(['Alice said: hello']);
  });
});
