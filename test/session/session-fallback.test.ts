/**
 * Refusals and fallback page: on the models whose classifiers may refuse, a
 * refused request is retried on the recommended model — by the API where
 * the model takes `fallbacks: "default"`, by the session where it does not
 * (Haiku 5.5) — the `fallback` block is kept, and the person is told which
 * model answered. With the setting off, a refusal is handled as before.
 */
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { InteractiveSession } from '../../src/session/index.js';
import { API_KEY, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const refused = {
  stopReason: 'refusal',
  refusal: { category: 'cyber', explanation: 'blocked', recommended_model: 'claude-opus-4-8' },
  fallbackText: 'Here is the answer.',
};

function open(model: string, fallback?: boolean) {
  const provider = new AnthropicProvider({
    apiKey: API_KEY,
    baseURL: fx.fake.url,
    maxRetries: 0,
    model,
    ...(fallback === undefined ? {} : { fallback }),
  });
  return fx.track(new InteractiveSession({ cwd: fx.cwd, provider, toolEnv: {} }));
}

describe('refusals and fallback', () => {
  it('asks the API for the default fallback, keeps the fallback block and says which model answered', async () => {
    const s = open('claude-sonnet-5-5');
    const rec = recordEvents(s);
    fx.fake.enqueue(refused);
    const result = await (await s.submit('scan my own server for open ports')).completed;
    const first = fx.fake.log[0];
    expect(first?.body.fallbacks).toBe('default');
    expect(String(first?.headers['anthropic-beta'])).toContain('server-side-fallback-2026-07-01');
    expect(result.response).toBe('Here is the answer.');
    expect(rec.of('notice').map(([n]) => n)).toContain(
      'claude-sonnet-5-5 declined this request; claude-opus-4-8 answered it.',
    );
    await (await s.submit('thanks')).completed;
    const sentBack = fx.fake.requests[1].messages[1].content;
    expect(sentBack[0]).toEqual({
      type: 'fallback',
      from: { model: 'claude-sonnet-5-5' },
      to: { model: 'claude-opus-4-8' },
      trigger: { type: 'refusal' },
    });
  });

  it('retries on the recommended model itself where the model has no server-side fallback (Haiku 5.5)', async () => {
    const s = open('claude-haiku-5-5');
    const rec = recordEvents(s);
    fx.fake.enqueue(refused, { text: 'Answered by the fallback.' });
    const result = await (await s.submit('question')).completed;
    expect(fx.fake.requests[0].fallbacks).toBeUndefined();
    expect(fx.fake.requests.map((b) => b.model)).toEqual(['claude-haiku-5-5', 'claude-opus-4-8']);
    expect(result.response).toBe('Answered by the fallback.');
    expect(rec.of('notice').map(([n]) => n)).toContain(
      'claude-haiku-5-5 declined this request; claude-opus-4-8 answers it instead.',
    );
    // The next turn is the session's model again; the refused reply is not sent back.
    await (await s.submit('next')).completed;
    expect(fx.fake.requests[2].model).toBe('claude-haiku-5-5');
    expect(fx.fake.requests[2].messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
  });

  it('with the setting off, sends no fallbacks and handles the refusal as before', async () => {
    const s = open('claude-sonnet-5-5', false);
    fx.fake.enqueue(refused);
    const result = await (await s.submit('question')).completed;
    expect(fx.fake.requests[0].fallbacks).toBeUndefined();
    expect(result.response).toMatch(/declined to answer this/);
  });
});
