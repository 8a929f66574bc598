/**
 * A platform counts a call when it arrives. The outbox paces a message, and
 * counts budgets, from each call's arrival as best known: its answer less the
 * platform's usual round trip. A usual call counts from its start (no round
 * trip lost per edit); a slow one from later, so the next call cannot land
 * under the interval.
 */
import { describe, expect, it } from 'vitest';
import { RecentMinimum } from '../../../src/bot/stream/budget.js';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { markdown } from '../../helpers/dialects.js';

describe('round-trip aware pacing', () => {
  it('RecentMinimum is 0 until it has a few samples, then the minimum of the recent ones', () => {
    const m = new RecentMinimum(4, 3);
    m.add(400);
    m.add(50);
    expect(m.value).toBe(0);
    m.add(60);
    expect(m.value).toBe(50);
    m.add(70);
    m.add(80); // the 400 leaves the window of the last four
    expect(m.value).toBe(50);
    m.add(90); // then the 50
    expect(m.value).toBe(60);
  });

  it('keeps edits a full interval apart at the platform when one call is slow, and loses no time when none is', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 50,
      capabilities: {
        maxMessageLength: 4000,
        minEditIntervalMs: 1000,
        dialect: markdown,
        nativeStream: false,
      },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const reply = outbox.stream('test:1');
    const edits = () => adapter.ops.filter((o) => o.op === 'edit' || o.op === 'send');
    for (let i = 0; i < 6; i++) {
      reply.append(`word${i} `);
      await clock.advance(1000);
    }
    const steady = edits().map((o) => o.time);
    const gaps = steady.slice(1).map((t, i) => t - steady[i]!);
    // Until three round trips are known, the pace counts from each answer (one round trip more)...
    expect(gaps.slice(0, 3)).toEqual([1050, 1050, 1050]);
    // ...then from the start of usual calls: arrivals a whole interval apart, nothing lost.
    expect(gaps.slice(3)).toEqual([1000, 1000]);

    // One call takes 400 ms more on the way to the platform.
    adapter.latencyMs = 450;
    reply.append('slow ');
    await clock.advance(1000);
    adapter.latencyMs = 50;
    for (let i = 0; i < 3; i++) {
      reply.append(`after${i} `);
      await clock.advance(1000);
    }
    const done = reply.finish();
    await clock.advance(5000);
    await done;
    const times = edits().map((o) => o.time);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
    expect(adapter.violations).toEqual([]);
  });

  it('counts a chat budget from arrivals, so calls bunched by latency do not exceed it at the platform', async () => {
    const clock = new VirtualClock();
    const adapter = new RecordingAdapter({
      clock,
      latencyMs: 30,
      capabilities: {
        maxMessageLength: 4000,
        minEditIntervalMs: 0,
        budget: { count: 3, windowMs: 1000 },
        dialect: markdown,
        nativeStream: false,
      },
    });
    const outbox = createOutbox({ adapters: [adapter], clock });
    const sends: Promise<string[]>[] = [];
    for (let i = 0; i < 4; i++) sends.push(outbox.send('test:1', `warm ${i}`));
    await clock.advance(3000);
    // Requests slow down on the way: they leave spaced out but arrive together.
    adapter.latencyMs = 600;
    for (let i = 0; i < 6; i++) sends.push(outbox.send('test:1', `burst ${i}`));
    await clock.advance(10_000);
    await Promise.all(sends);
    expect(adapter.violations).toEqual([]);
    expect(adapter.chatMessages('test:1')).toHaveLength(10);
  });
});
