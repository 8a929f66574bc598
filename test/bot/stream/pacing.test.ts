import { describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { telegramHtml } from '../../helpers/dialects.js';
import { play, scriptedReply, staleness, trackVisibility, wordsIn } from './script.js';

describe('outbox pacing', () => {
  it('respects a Telegram group budget of 20 calls a minute over a long reply, spreading edits evenly', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 60,
      capabilities: {
        maxMessageLength: 4096,
        minEditIntervalMs: 1000,
        budget: { count: 20, windowMs: 60_000 },
        dialect: telegramHtml,
      },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const seen = trackVisibility(adapter);
    const { deltas, text } = scriptedReply({
      chars: 9000,
      durationMs: 150_000,
      burstMs: 20_000,
      pauseMs: 5000,
    });
    const reply = outbox.stream('test:-100', { liveButtons: [[{ label: 'Stop', payload: 's' }]] });
    await play(clock, reply, deltas);
    const done = reply.finish();
    await clock.advance(120_000);
    const { messageIds } = await done;
    expect(adapter.violations).toEqual([]);
    const times = adapter.ops.map((o) => o.time);
    for (let i = 20; i < times.length; i++) expect(times[i]! - times[i - 20]!).toBeGreaterThanOrEqual(60_000);
    expect(wordsIn(messageIds.map((id) => adapter.messageText(id)!))).toEqual(text.match(/w\d{5}/g));
    // Live edits are spread at 60 s / 20 = 3 s: no word waits much longer than that.
    const stale = staleness(deltas, seen.firstSeen).sort((a, b) => a - b);
    expect(stale[Math.floor(stale.length * 0.95)]).toBeLessThanOrEqual(3000 * 1.2);
  });

  it("keeps every window a chat's calls count in: a burst fits the short ones and a long chat the hour (Teams' four)", async () => {
    const clock = new VirtualClock();
    const budget = { count: 60, windowMs: 30_000 };
    const otherBudgets = [
      { count: 7, windowMs: 1000 },
      { count: 8, windowMs: 2000 },
      { count: 90, windowMs: 3_600_000 },
    ];
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 20,
      capabilities: { maxMessageLength: 4096, minEditIntervalMs: 0, budget, otherBudgets },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    // Many one-line messages at once: only the budgets hold them back.
    const sent = Array.from({ length: 100 }, (_, i) => outbox.send('test:c', `m${i}`));
    await clock.advance(3_700_000);
    await Promise.all(sent);
    expect(adapter.violations).toEqual([]);
    const times = adapter.ops.filter((o) => o.op === 'send').map((o) => o.time);
    expect(times).toHaveLength(100);
    const most = (windowMs: number) =>
      Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + windowMs).length));
    expect(most(1000)).toBeLessThanOrEqual(7);
    expect(most(2000)).toBeLessThanOrEqual(8);
    expect(most(30_000)).toBeLessThanOrEqual(60);
    // The hour's 90 hold the last ten until the first calls leave it.
    expect(most(3_600_000)).toBeLessThanOrEqual(90);
    expect(times[90]! - times[0]!).toBeGreaterThanOrEqual(3_600_000);
  });

  it('under a budget, a message that fills up ends within its shown text and its last edit waits for new text', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 50,
      capabilities: {
        maxMessageLength: 600,
        minEditIntervalMs: 1000,
        budget: { count: 10, windowMs: 20_000 },
      },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const seen = trackVisibility(adapter);
    const { deltas, text } = scriptedReply({ chars: 3000, durationMs: 60_000 });
    const reply = outbox.stream('test:-1', { liveButtons: [[{ label: 'Stop', payload: 's' }]] });
    await play(clock, reply, deltas);
    // While text flows, filled messages still carry the Stop button: their cosmetic edit waits.
    const sends = adapter.ops.filter((o) => o.op === 'send');
    expect(sends.length).toBeGreaterThanOrEqual(4);
    const firstFinal = adapter.ops.find(
      (o) => o.op === 'edit' && o.messageId === '1' && o.buttons?.length === 0,
    );
    expect(firstFinal === undefined || firstFinal.time > sends[1]!.time).toBe(true);
    const done = reply.finish();
    await clock.advance(120_000);
    const { messageIds } = await done;
    expect(adapter.violations).toEqual([]);
    const messages = messageIds.map((id) => adapter.messages.get(id)!);
    for (const m of messages) {
      expect(m.buttons).toEqual([]);
      expect(m.text.length).toBeLessThanOrEqual(600);
    }
    expect(wordsIn(messages.map((m) => m.text))).toEqual(text.match(/w\d{5}/g));
    const stale = staleness(deltas, seen.firstSeen).sort((a, b) => a - b);
    expect(stale[Math.floor(stale.length * 0.95)]).toBeLessThanOrEqual(2200 * 1.2);
  });

  it('opening a native stream costs no budget', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      nativeStream: true,
      capabilities: { nativeStream: true, minEditIntervalMs: 1000, budget: { count: 2, windowMs: 10_000 } },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const reply = outbox.stream('test:1');
    reply.append('hello world');
    await clock.advance(0);
    expect(adapter.ops.map((o) => [o.time, o.op, o.ok])).toEqual([
      [0, 'startStream', true],
      [0, 'updateStream', true],
    ]);
    expect(adapter.violations).toEqual([]);
  });

  it('opening a native stream costs budget where the opening is a platform request', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      nativeStream: true,
      capabilities: {
        nativeStream: true,
        nativeStreamStartCounts: true,
        minEditIntervalMs: 1000,
        budget: { count: 2, windowMs: 10_000 },
      },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const reply = outbox.stream('test:1');
    reply.append('hello world');
    await clock.advance(5500);
    const done = reply.finish();
    await clock.advance(5000);
    await done;
    // The opening and the update fill the window: the finish waits for the opening to leave it.
    expect(adapter.ops.map((o) => [o.time, o.op, o.ok])).toEqual([
      [0, 'startStream', true],
      [5500, 'updateStream', true],
      [10_000, 'finishStream', true],
    ]);
  });

  it('respects the adapter-wide budget across chats', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({ clock, globalBudget: { count: 30, windowMs: 1000 } });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const sends = Array.from({ length: 100 }, (_, i) => outbox.send(`test:${i}`, `hello ${i}`));
    await clock.advance(5000);
    await Promise.all(sends);
    expect(adapter.violations).toEqual([]);
    expect(adapter.ops.filter((o) => o.time < 1000)).toHaveLength(30);
    expect(adapter.chatMessages('test:99')[0]!.text).toBe('hello 99');
  });

  it('shows typing every interval while active, lets text go first, and stops when asked', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      capabilities: { typingIntervalMs: 5000, budget: { count: 4, windowMs: 10_000 } },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    outbox.startTyping('test:1');
    await clock.advance(20_000);
    const typings = adapter.ops.filter((o) => o.op === 'typing').map((o) => o.time);
    expect(typings).toEqual([0, 4500, 9000, 13_500, 18_000]);
    // The budget is tight: a send waiting for room goes before the next typing.
    await outbox.send('test:1', 'one');
    const sends = [outbox.send('test:1', 'two'), outbox.send('test:1', 'three')];
    await clock.advance(10_000);
    await Promise.all(sends);
    const order = adapter.ops.filter((o) => o.time > 18_000).map((o) => o.op);
    expect(order.slice(0, 3)).toEqual(['send', 'send', 'send']);
    outbox.stopTyping('test:1');
    const count = adapter.ops.length;
    await clock.advance(30_000);
    expect(adapter.ops).toHaveLength(count);
    expect(adapter.violations).toEqual([]);
  });

  it('keeps one call in flight per message even when calls take longer than the interval', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 1500,
      capabilities: { minEditIntervalMs: 1000 },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const reply = outbox.stream('test:1');
    for (let i = 0; i < 40; i++) {
      reply.append(`w${String(i).padStart(5, '0')} `);
      await clock.advance(250);
    }
    const done = reply.finish();
    await clock.advance(10_000);
    await done;
    // The next call starts only when the previous one is answered, so arrivals are >= 1500 ms apart.
    const times = adapter.ops.map((o) => o.time);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1500);
    expect(adapter.violations).toEqual([]);
    expect(adapter.messageText('1')).toBe(reply.text.trim());
  });

  it('idle() resolves once nothing is queued or in flight', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({ clock, latencyMs: 100 });
    const outbox = createOutbox({ adapters: [adapter], clock });
    outbox.startTyping('test:1');
    let idle = false;
    void outbox.send('test:1', 'x');
    void outbox.idle().then(() => {
      idle = true;
    });
    await clock.advance(99);
    expect(idle).toBe(false);
    await clock.advance(1);
    expect(idle).toBe(true);
  });
});
