/**
 * A platform counts a call when it arrives. The scheduler paces a message from
 * the end of its previous call less the fastest recent round trip: the start,
 * for a call as fast as usual; later by the extra delay, for a slow one.
 */
import { describe, expect, it } from 'vitest';
import { RecentMinimum } from '../../../src/bot/stream/budget.js';
import { Scheduler } from '../../../src/bot/stream/scheduler.js';
import { sleep, VirtualClock } from '../../../src/clock.js';
import { silentLogger } from '../../../src/logger.js';

describe('round-trip aware pacing', () => {
  it('RecentMinimum answers 0 until it has a few samples, then the minimum of the recent ones', () => {
    const m = new RecentMinimum(4, 3);
    expect(m.add(400)).toBe(0);
    expect(m.add(50)).toBe(0);
    expect(m.add(60)).toBe(50);
    expect(m.add(70)).toBe(50);
    // The oldest samples leave the window of the last four: first the 400, then the 50.
    expect(m.add(80)).toBe(50);
    expect(m.add(90)).toBe(60);
  });

  it('counts a usual call from its start and a slow call from its end less the usual round trip', async () => {
    const clock = new VirtualClock();
    const scheduler = new Scheduler(new Map(), clock, silentLogger);
    const call = (ms: number) => () => sleep(clock, ms);
    const run = async (key: string, ms: number) => {
      const startedAt = clock.now();
      const done = scheduler.pacedCall(key, call(ms));
      await clock.advance(ms);
      await done;
      return startedAt;
    };
    // Until the round trip is known, the pace counts from the end (conservative).
    await run('test:1\u0000m\u00001', 50);
    expect(scheduler.lastCall('test:1\u0000m\u00001')).toBe(50);
    await run('test:1\u0000m\u00002', 50);
    const usual = await run('test:1\u0000m\u00003', 50);
    // Three 50 ms round trips: a usual call counts from its start.
    expect(scheduler.lastCall('test:1\u0000m\u00003')).toBe(usual);
    // A call 350 ms slower than usual counts 350 ms after its start.
    const slow = await run('test:1\u0000m\u00003', 400);
    expect(scheduler.lastCall('test:1\u0000m\u00003')).toBe(slow + 350);
  });
});
