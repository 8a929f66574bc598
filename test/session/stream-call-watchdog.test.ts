import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import type { Provider, ProviderEvent } from '../../src/provider/types.js';
import { callProvider } from '../../src/session/stream-call.js';

const request = { model: 'm', messages: [], tools: [], maxTokens: 10 };

describe('callProvider idle watchdog', () => {
  it('counts the idle time from the last event, however many came before, and leaves no timer behind', async () => {
    const clock = new VirtualClock();
    const ticks: (() => void)[] = [];
    const provider: Provider = {
      name: 'custom',
      defaultModel: 'custom-model',
      async *stream(): AsyncIterable<ProviderEvent> {
        for (let i = 0; i < 4; i++) {
          await new Promise<void>((resolve) => ticks.push(resolve));
          yield { type: 'text_delta', text: `${i}` };
        }
        await new Promise(() => undefined); // then silence, ignoring the signal
      },
    };
    const texts: string[] = [];
    const call = callProvider({
      provider,
      request,
      signal: new AbortController().signal,
      clock,
      idleTimeoutMs: 5_000,
      onText: (t) => texts.push(t),
    });
    // Events at 1.5 s, 4.5 s, 6 s and 9.7 s: each gap is under the timeout, the sum is not.
    for (const gap of [1_500, 3_000, 1_500, 3_700]) {
      await clock.advance(gap);
      ticks.shift()?.();
    }
    await clock.advance(0);
    expect(texts).toEqual(['0', '1', '2', '3']);
    await clock.advance(4_999);
    let settled = false;
    void call.then(() => {
      settled = true;
    });
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    const result = await call;
    expect(result.error?.code).toBe('PROVIDER_STALLED');
    expect(clock.now()).toBe(9_700 + 5_000);
    expect(result.text).toBe('0123');
    expect(clock.pending).toBe(0);
  });

  it('clears its timer when the stream ends normally', async () => {
    const clock = new VirtualClock();
    const provider: Provider = {
      name: 'custom',
      defaultModel: 'custom-model',
      async *stream(): AsyncIterable<ProviderEvent> {
        yield { type: 'text_delta', text: 'hi' };
        yield { type: 'message_end', stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const result = await callProvider({
      provider,
      request,
      signal: new AbortController().signal,
      clock,
      idleTimeoutMs: 5_000,
    });
    expect(result).toMatchObject({ text: 'hi', end: { stopReason: 'end_turn' } });
    expect(clock.pending).toBe(0);
  });
});
