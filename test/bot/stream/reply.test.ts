import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { markdown } from '../../helpers/dialects.js';
import { play, scriptedReply, staleness, trackVisibility, wordsIn } from './script.js';

const stop = [[{ label: 'Stop', payload: 'stop:1' }]];
let adapter: RecordingAdapter | undefined;

afterEach(() => adapter?.removeAllListeners());

function setup(caps: ConstructorParameters<typeof RecordingAdapter>[0]['capabilities'] = {}, latencyMs = 80) {
  const clock = new VirtualClock();
  adapter = new RecordingAdapter({
    clock,
    latencyMs,
    capabilities: { maxMessageLength: 1000, minEditIntervalMs: 1000, dialect: markdown, ...caps },
  });
  const outbox = createOutbox({ adapters: [adapter], clock });
  return { clock, adapter, outbox };
}

describe('ReplyStream (edits)', () => {
  it('streams a long reply at the declared pace, with bounded staleness and the exact text across messages', async () => {
    const { clock, adapter, outbox } = setup();
    const seen = trackVisibility(adapter);
    const { deltas, text } = scriptedReply({
      chars: 6000,
      durationMs: 60_000,
      burstMs: 7000,
      pauseMs: 3000,
      codeAt: 2500,
    });
    const reply = outbox.stream('test:1', { liveButtons: stop });
    await play(clock, reply, deltas);
    const done = reply.finish();
    await clock.advanceUntil(() => adapter.ops.length > 0 && reply.messageIds.length > 0, 10_000);
    await clock.advance(10_000);
    const delivered = await done;

    expect(adapter.violations).toEqual([]);
    expect(reply.text).toBe(text);
    expect(delivered.text).toBe(text);
    const messages = adapter.chatMessages('test:1');
    expect(messages.map((m) => m.id)).toEqual(delivered.messageIds);
    expect(messages.length).toBeGreaterThanOrEqual(7);
    // Every word exactly once, in order; every code line inside a code block.
    expect(wordsIn(messages.map((m) => m.text))).toEqual(text.match(/w\d{5}(?!c)/g));
    const all = messages.map((m) => m.text).join('\n');
    for (let i = 0; i < 40; i++) expect(all).toContain(`const c${i} = ${i};`);
    for (const m of messages) {
      expect(m.text.length).toBeLessThanOrEqual(1000);
      expect(m.text.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
      expect(m.buttons).toEqual([]);
    }
    // One call in flight and >= 1000 ms between calls on every message.
    const byMessage = new Map<string, number[]>();
    for (const op of adapter.ops.filter((o) => o.ok && o.messageId)) {
      const list = byMessage.get(op.messageId!) ?? [];
      list.push(op.time);
      byMessage.set(op.messageId!, list);
    }
    for (const times of byMessage.values()) {
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
    }
    // No text older than an interval plus a round trip stays invisible.
    const stale = staleness(deltas, seen.firstSeen).sort((a, b) => a - b);
    expect(stale[stale.length - 1]).toBeLessThanOrEqual(1000 + 2 * 80);
    const p95 = stale[Math.floor(stale.length * 0.95)]!;
    expect(p95).toBeLessThanOrEqual(1200);
  });

  it('sends the first text at once, without a placeholder, then edits with the newest text only', async () => {
    const { clock, adapter, outbox } = setup({}, 50);
    const reply = outbox.stream('test:1', { replyTo: '99' });
    await clock.advance(5000);
    expect(adapter.ops).toEqual([]);
    reply.append('Hello there');
    await clock.advance(50);
    expect(adapter.ops.map((o) => [o.time, o.op, o.text])).toEqual([[5050, 'send', 'Hello there']]);
    for (const w of [' a', ' b', ' c']) {
      reply.append(w);
      await clock.advance(100);
    }
    await clock.advance(2000);
    expect(adapter.ops.map((o) => [o.time, o.op, o.text])).toEqual([
      [5050, 'send', 'Hello there'],
      // The edit leaves a second after the send was answered (5050; no round trips known yet,
      // so the pace counts from the answer) and lands 50 ms later.
      [6100, 'edit', 'Hello there a b c'],
    ]);
    await clock.advance(5000);
    expect(adapter.ops).toHaveLength(2);
  });

  it('holds the first message briefly for a whole word, not longer', async () => {
    const { clock, adapter, outbox } = setup({}, 0);
    const a = outbox.stream('test:1');
    a.append('Hel');
    await clock.advance(100);
    expect(adapter.ops).toEqual([]);
    a.append('lo, ');
    await clock.advance(0);
    expect(adapter.ops.map((o) => [o.time, o.text])).toEqual([[100, 'Hello,']]);
    const b = outbox.stream('test:2');
    b.append('Supercalifragilistic');
    await clock.advance(299);
    expect(adapter.chatMessages('test:2')).toEqual([]);
    await clock.advance(1);
    expect(adapter.chatMessages('test:2').map((m) => m.text)).toEqual(['Supercalifragilistic']);
  });

  it('flushes text appended during a pause on a timer, not on the next delta', async () => {
    const { clock, adapter, outbox } = setup({}, 0);
    const reply = outbox.stream('test:1');
    reply.append('one ');
    await clock.advance(200);
    reply.append('two');
    await clock.advance(799);
    expect(adapter.messageText('1')).toBe('one');
    await clock.advance(1);
    expect(adapter.messageText('1')).toBe('one two');
  });

  it('shows the status line under the live text and removes it with the Stop button at finish', async () => {
    const { clock, adapter, outbox } = setup({}, 0);
    const reply = outbox.stream('test:1', { liveButtons: stop });
    reply.setStatus('⚙ Bash: npm test');
    await clock.advance(0);
    expect(adapter.messageText('1')).toBe('*⚙ Bash: npm test*');
    reply.append('Running the tests.');
    await clock.advance(1000);
    expect(adapter.messageText('1')).toBe('Running the tests.\n\n*⚙ Bash: npm test*');
    expect(adapter.messages.get('1')!.buttons).toEqual(stop);
    reply.setStatus(undefined);
    reply.append(' All passed.');
    const done = reply.finish();
    await clock.advance(1000);
    await expect(done).resolves.toEqual({ messageIds: ['1'], text: 'Running the tests. All passed.' });
    expect(adapter.messageText('1')).toBe('Running the tests. All passed.');
    expect(adapter.messages.get('1')!.buttons).toEqual([]);
  });

  // Discord's REST client retries a 5xx and waits out a 429 inside one send, so a reply can
  // finish while its first message is still on the way: the Stop button must still go.
  it('removes the Stop button when the reply finishes while its first message is still being sent', async () => {
    const { clock, adapter, outbox } = setup({}, 500);
    const reply = outbox.stream('test:1', { liveButtons: stop });
    reply.append('All is well.');
    await clock.advance(100);
    const done = reply.finish();
    await clock.advance(2000);
    await expect(done).resolves.toEqual({ messageIds: ['1'], text: 'All is well.' });
    // The send left before finish() (it arrived 500 ms after it was made), with the button.
    expect(adapter.ops[0]).toMatchObject({ op: 'send', time: 500, buttons: stop });
    expect(adapter.messageText('1')).toBe('All is well.');
    expect(adapter.messages.get('1')!.buttons).toEqual([]);
  });

  it('finish() with a note and nothing streamed sends the note; a status-only message is deleted', async () => {
    const { clock, adapter, outbox } = setup({}, 0);
    const a = outbox.stream('test:1');
    const noted = a.finish({ note: 'interrupted' });
    await clock.advance(0);
    await expect(noted).resolves.toMatchObject({ messageIds: ['1'] });
    expect(adapter.messageText('1')).toBe('*interrupted*');

    const b = outbox.stream('test:2');
    b.setStatus('⚙ Read: a.ts');
    await clock.advance(0);
    expect(adapter.chatMessages('test:2')).toHaveLength(1);
    const done = b.finish();
    await clock.advance(1000);
    await expect(done).resolves.toEqual({ messageIds: [], text: '' });
    expect(adapter.chatMessages('test:2')).toHaveLength(0);
  });

  it('checkpoint() makes the text so far permanent and continues in a new message after it', async () => {
    const { clock, adapter, outbox } = setup({}, 0);
    const reply = outbox.stream('test:1', { liveButtons: stop });
    reply.append('I will edit the file.');
    await clock.advance(0);
    const cp = reply.checkpoint();
    await clock.advance(1000);
    await cp;
    expect(adapter.messages.get('1')).toMatchObject({ text: 'I will edit the file.', buttons: [] });
    const prompt = outbox.send('test:1', 'Allow Edit?');
    await clock.advance(0);
    await expect(prompt).resolves.toEqual(['2']);
    reply.append(' Done.');
    const done = reply.finish();
    await clock.advance(2000);
    await expect(done).resolves.toMatchObject({ messageIds: ['1', '3'] });
    expect(adapter.messageText('3')).toBe('Done.');
  });

  it('keeps a code fence intact when a reply continues in a new message', async () => {
    const { clock, adapter, outbox } = setup({ maxMessageLength: 300 }, 0);
    const reply = outbox.stream('test:1');
    const code = Array.from({ length: 30 }, (_, i) => `print(${i})`).join('\n');
    reply.append(`Here:\n\n\`\`\`python\n${code}\n\`\`\`\n\nDone.`);
    const done = reply.finish();
    await clock.advance(5000);
    const { messageIds } = await done;
    expect(messageIds.length).toBeGreaterThan(1);
    const texts = messageIds.map((id) => adapter.messageText(id)!);
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(300);
      expect(t.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
    }
    expect(texts.filter((t) => t.includes('```python')).length).toBeGreaterThan(1);
    for (let i = 0; i < 30; i++) expect(texts.join('\n')).toContain(`print(${i})`);
    expect(adapter.violations).toEqual([]);
  });
});

describe('ReplyStream boundaries', () => {
  it('a checkpoint right after a closing fence does not reopen it; one inside a fence does', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      capabilities: { dialect: markdown, minEditIntervalMs: 1000 },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const closed = outbox.stream('test:1');
    closed.append('Code:\n\n```ts\nconst a = 1;\n```');
    const cp1 = closed.checkpoint();
    await clock.advance(1000);
    await cp1;
    closed.append('\n\nAfter the code.');
    const done1 = closed.finish({ note: 'stopped' });
    await clock.advance(2000);
    const ids1 = (await done1).messageIds;
    expect(adapter.messageText(ids1[1]!)).toBe('After the code.\n\n*stopped*');

    const open = outbox.stream('test:2');
    open.append('```py\nprint(1)\n');
    const cp2 = open.checkpoint();
    await clock.advance(1000);
    await cp2;
    open.append('print(2)\n');
    const done2 = open.finish({ note: 'stopped' });
    await clock.advance(2000);
    const ids2 = (await done2).messageIds;
    expect(ids2.map((id) => adapter.messageText(id))).toEqual([
      '```py\nprint(1)\n```',
      '```py\nprint(2)\n```\n\n*stopped*',
    ]);
  });
});
