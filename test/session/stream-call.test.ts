import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import type { Provider, ProviderEvent, ProviderRequest } from '../../src/provider/types.js';
import { callProvider } from '../../src/session/stream-call.js';

// Custom providers are part of the library's contract; these stand for a
// badly behaved third-party one (the Anthropic provider is tested over HTTP).
function provider(stream: (request: ProviderRequest) => AsyncIterable<ProviderEvent>): Provider {
  return { name: 'custom', defaultModel: 'custom-model', stream };
}

const request = { model: 'm', messages: [], tools: [], maxTokens: 10 };

describe('callProvider', () => {
  it('the idle watchdog ends a stream that ignores its signal, keeping the text so far', async () => {
    const clock = new VirtualClock();
    let sawAbort = false;
    const silent = provider(async function* (req) {
      req.signal.addEventListener('abort', () => {
        sawAbort = true;
      });
      yield { type: 'text_delta', text: 'so far' };
      await new Promise(() => undefined); // never ends, never looks at the signal
    });
    const texts: string[] = [];
    const call = callProvider({
      provider: silent,
      request,
      signal: new AbortController().signal,
      clock,
      idleTimeoutMs: 5_000,
      onText: (t) => texts.push(t),
    });
    await clock.advance(4_999);
    expect(texts).toEqual(['so far']);
    await clock.advance(1);
    const result = await call;
    expect(result.error?.code).toBe('PROVIDER_STALLED');
    expect(result.text).toBe('so far');
    expect(result.end).toBeUndefined();
    expect(sawAbort).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('progress events keep a slow stream alive past the idle timeout', async () => {
    const clock = new VirtualClock();
    let tick!: () => void;
    const slow = provider(async function* () {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve) => {
          tick = resolve;
        });
        yield { type: 'progress' };
      }
      yield { type: 'message_end', stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } };
    });
    const call = callProvider({
      provider: slow,
      request,
      signal: new AbortController().signal,
      clock,
      idleTimeoutMs: 5_000,
    });
    for (let i = 0; i < 3; i++) {
      await clock.advance(4_000);
      tick();
    }
    await expect(call).resolves.toMatchObject({ end: { stopReason: 'end_turn' } });
    expect(clock.now()).toBe(12_000);
  });

  it('an abort of the turn ends the call at once even if the provider does not listen', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const deaf = provider(async function* () {
      await new Promise(() => undefined);
      yield { type: 'text_delta', text: 'never' };
    });
    const call = callProvider({
      provider: deaf,
      request,
      signal: controller.signal,
      clock,
      idleTimeoutMs: 5_000,
    });
    controller.abort();
    await expect(call).resolves.toMatchObject({ error: { code: 'ABORTED' }, text: '' });
  });

  it('a provider that throws at once, or ends without message_end, gives a PROVIDER_ERROR', async () => {
    const clock = new VirtualClock();
    const signal = new AbortController().signal;
    const throwing = provider(() => {
      throw new Error('no connection');
    });
    const a = await callProvider({ provider: throwing, request, signal, clock, idleTimeoutMs: 5_000 });
    expect(a.error).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(a.error?.message).toContain('no connection');
    const short = provider(async function* () {
      yield { type: 'text_delta', text: 'cut' };
    });
    const b = await callProvider({ provider: short, request, signal, clock, idleTimeoutMs: 5_000 });
    expect(b).toMatchObject({ text: 'cut', error: { code: 'PROVIDER_ERROR' } });
  });
});
