import { describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { markdown, telegramHtml } from '../../helpers/dialects.js';
import { play, scriptedReply, wordsIn } from './script.js';

function setup(caps: ConstructorParameters<typeof RecordingAdapter>[0]['capabilities'] = {}) {
  const clock = new VirtualClock();
  const adapter = new RecordingAdapter({
    clock,
    nativeStream: true,
    latencyMs: 40,
    capabilities: {
      maxMessageLength: 4000,
      minEditIntervalMs: 1000,
      dialect: markdown,
      nativeStream: true,
      nativeStreamMaxMs: 30_000,
      ...caps,
    },
  });
  const outbox = createOutbox({ adapters: [adapter], clock });
  return { clock, adapter, outbox };
}

describe('native streaming', () => {
  it('streams through startStream/updateStream at the declared pace and finishes into a real message', async () => {
    const { clock, adapter, outbox } = setup();
    const reply = outbox.stream('test:1');
    await clock.advance(1000);
    expect(adapter.ops).toEqual([]);
    reply.append('Hello **wor');
    await clock.advance(100);
    expect(adapter.ops.map((o) => o.op)).toEqual(['startStream', 'updateStream']);
    // Markdown streams carry the model's own text, so each update only grows.
    expect(adapter.ops[1]!.text).toBe('Hello **wor');
    reply.append('ld**!');
    // With no round trips known yet, the pace counts from the first update's answer (80 ms):
    // the next leaves at 1080 and lands at 1120.
    await clock.advance(1100);
    expect([...adapter.streams.values()][0]!.text).toBe('Hello **world**!');
    const done = reply.finish();
    await clock.advance(2000);
    const { messageIds } = await done;
    expect(adapter.streams.size).toBe(0);
    expect(adapter.messages.get(messageIds[0]!)).toMatchObject({
      text: 'Hello **world**!',
      fromStream: 's1',
    });
    expect(adapter.violations).toEqual([]);
  });

  it('paces the first update from the start where the platform sees the opening', async () => {
    // Teams counts the opening as a stream request and refuses the next one under its interval.
    const { clock, adapter, outbox } = setup({ nativeStreamStartCounts: true });
    const reply = outbox.stream('test:1');
    reply.append('Hello there, ');
    await clock.advanceUntil(() => adapter.ops.some((o) => o.op === 'updateStream'));
    reply.append('general reader.');
    await clock.advanceUntil(() => adapter.ops.filter((o) => o.op === 'updateStream').length === 2);
    const [start, first, second] = adapter.ops;
    expect([start?.op, first?.op, second?.op]).toEqual(['startStream', 'updateStream', 'updateStream']);
    // Arrival to arrival, the opening and the first update are a whole interval apart, as the updates are.
    expect(first!.time - start!.time).toBeGreaterThanOrEqual(1000);
    expect(second!.time - first!.time).toBeGreaterThanOrEqual(1000);
    const done = reply.finish();
    await clock.advance(2000);
    expect(adapter.messageText((await done).messageIds[0]!)).toBe('Hello there, general reader.');
  });

  it('paces the finish of a stream that had no update from its paced opening', async () => {
    const { clock, adapter, outbox } = setup({ nativeStreamStartCounts: true });
    const reply = outbox.stream('test:1');
    reply.append('Hello');
    await clock.advanceUntil(() => adapter.ops.some((o) => o.op === 'startStream'));
    const done = reply.finish();
    await clock.advanceUntil(() => adapter.ops.some((o) => o.op === 'finishStream'));
    const { messageIds } = await done;
    const [start, next] = adapter.ops;
    expect([start?.op, next?.op]).toEqual(['startStream', 'finishStream']);
    expect(next!.time - start!.time).toBeGreaterThanOrEqual(1000);
    expect(adapter.messageText(messageIds[0]!)).toBe('Hello');
  });

  it('finishes and restarts a stream before its maximum age, and checkpoint() makes it a message', async () => {
    const { clock, adapter, outbox } = setup();
    const { deltas, text } = scriptedReply({ chars: 3000, durationMs: 70_000 });
    const reply = outbox.stream('test:1');
    await play(clock, reply, deltas);
    const cp = reply.checkpoint();
    await clock.advance(3000);
    await cp;
    expect(adapter.streams.size).toBe(0);
    const starts = adapter.ops.filter((o) => o.op === 'startStream');
    const finishes = adapter.ops.filter((o) => o.op === 'finishStream');
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(finishes).toHaveLength(starts.length);
    for (let i = 0; i < starts.length; i++) expect(finishes[i]!.time - starts[i]!.time).toBeLessThan(30_000);
    const messages = adapter.chatMessages('test:1');
    expect(wordsIn(messages.map((m) => m.text))).toEqual(text.match(/w\d{5}/g));
    expect(adapter.violations).toEqual([]);
    const done = reply.finish();
    await clock.advance(1000);
    await expect(done).resolves.toMatchObject({ messageIds: messages.map((m) => m.id) });
  });

  it('finishes the stream into a message when the reply ends while an update with its whole text is on the way', async () => {
    const { clock, adapter, outbox } = setup();
    const reply = outbox.stream('test:1');
    reply.append('Hello world');
    await clock.advance(100);
    reply.append(', and goodbye.');
    // The first update is answered at 80 (no round trips known yet, so the pace counts from there);
    // the second leaves a second later, at 1080, and arrives at 1120.
    await clock.advance(990);
    expect(adapter.ops.map((o) => o.op)).toEqual(['startStream', 'updateStream']);
    const done = reply.finish();
    await clock.advance(3000);
    const { messageIds } = await done;
    expect(adapter.ops.map((o) => [o.op, o.text])).toEqual([
      ['startStream', undefined],
      ['updateStream', 'Hello world'],
      ['updateStream', 'Hello world, and goodbye.'],
      ['finishStream', 'Hello world, and goodbye.'],
    ]);
    expect(messageIds).toHaveLength(1);
    expect(adapter.messageText(messageIds[0]!)).toBe('Hello world, and goodbye.');
    expect(adapter.streams.size).toBe(0);
    expect(adapter.violations).toEqual([]);
  });

  it('falls back to edits when startStream answers STREAM_UNAVAILABLE', async () => {
    const { clock, adapter, outbox } = setup({ dialect: telegramHtml });
    adapter.failNext('startStream', 'STREAM_UNAVAILABLE');
    const reply = outbox.stream('test:1');
    reply.append('Hello <there>');
    await clock.advance(100);
    reply.append(' and more');
    const done = reply.finish();
    await clock.advance(3000);
    const { messageIds } = await done;
    expect(adapter.ops.map((o) => [o.op, o.ok])).toEqual([
      ['startStream', false],
      ['send', true],
      ['edit', true],
    ]);
    expect(adapter.messageText(messageIds[0]!)).toBe('Hello &lt;there&gt; and more');
  });

  it('honours RATE_LIMITED on updateStream and sends only the newest text after the pause', async () => {
    const { clock, adapter, outbox } = setup();
    const reply = outbox.stream('test:1');
    reply.append('a b');
    await clock.advance(100);
    adapter.rateLimitNext(4000, { ops: 'updateStream' });
    reply.append(' c');
    await clock.advance(1000);
    for (const w of [' d', ' e']) {
      reply.append(w);
      await clock.advance(1000);
    }
    expect(adapter.ops.filter((o) => o.op === 'updateStream').map((o) => o.ok)).toEqual([true, false]);
    await clock.advance(3000);
    const updates = adapter.ops.filter((o) => o.op === 'updateStream' && o.ok);
    expect(updates.map((o) => o.text)).toEqual(['a b', 'a b c d e']);
    expect(updates[1]!.time - adapter.ops.find((o) => !o.ok)!.time).toBeGreaterThanOrEqual(4000);
  });
});
