/**
 * A model stream that stops sending (connection held open, no events) is
 * cancelled after the session's idle timeout, the chat is told, and the
 * session stays usable. The bot core does not expose a shorter stream idle
 * timeout, so this runs the default 120 s on the harness's virtual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type BotHarness, HARNESS_API_KEY, startBotHarness } from '../helpers/bot-harness.js';
import { watchUnhandled } from './telegram-world.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('stalled model stream', () => {
  it('times out with a message to the chat; the next message is answered in the same session', async () => {
    const unhandled = watchUnhandled();
    h = await startBotHarness();
    const harness = h;
    harness.fakeAnthropic.enqueue({ text: ['Thinking about ', 'it'], stallAfterChunks: 1 });
    await harness.message('a question that stalls');
    await harness.until(() => harness.fakeAnthropic.log[0]?.chunksSent === 1, 'first chunk');
    const startedAt = harness.clock.now();
    // 200 ms of virtual time per step: the 120 s watchdog fires within the harness's step limit.
    await harness.until(() => harness.texts().some((t) => /stopped sending/i.test(t)), 'stall notice', 200);
    const waited = harness.clock.now() - startedAt;
    expect(waited).toBeGreaterThanOrEqual(119_000);
    expect(waited).toBeLessThan(130_000);
    // The held connection was given up, not left open.
    await harness.until(() => harness.fakeAnthropic.log[0]?.closedEarly === true, 'stalled request closed');
    const notice = harness.texts().find((t) => /stopped sending/i.test(t)) ?? '';
    expect(notice).toMatch(/^⚠️ .*120 s.*Send your message again/);
    expect(harness.texts().join('\n')).toContain('Thinking about');

    await harness.message('are you there?');
    await harness.until(() => harness.texts().includes('Alice said: are you there?'), 'next answer');
    const next = harness.fakeAnthropic.requests.at(-1);
    const history = JSON.stringify(next.messages);
    expect(history).toContain('a question that stalls');
    expect(history).toContain('are you there?');
    await harness.settle();
    expect(harness.logs.join('\n')).not.toContain(HARNESS_API_KEY);
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  });

  it('honours the bot option streamIdleTimeoutMs', async () => {
    h = await startBotHarness({ streamIdleTimeoutMs: 5_000 });
    const harness = h;
    harness.fakeAnthropic.enqueue({ text: ['Thinking'], stallAfterChunks: 1 });
    await harness.message('a question that stalls');
    await harness.until(() => harness.fakeAnthropic.log[0]?.chunksSent === 1, 'first chunk');
    const startedAt = harness.clock.now();
    await harness.until(() => harness.texts().some((t) => /stopped sending/i.test(t)), 'stall notice', 100);
    const waited = harness.clock.now() - startedAt;
    expect(waited).toBeGreaterThanOrEqual(4_900);
    expect(waited).toBeLessThan(10_000);
    expect(harness.texts().find((t) => /stopped sending/i.test(t))).toMatch(/5 s/);
  });
});
