import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/provider/index.js';
import { fakeInputTokens } from '../fakes/anthropic-tokens.js';
import { pngBase64 } from '../fakes/images.js';
import { API_KEY, recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const SONNET = 'claude-sonnet-5-5';

const samples: Record<string, string> = {
  prose: 'The quick brown fox jumps over the lazy dog while the farmer watches from the porch. '.repeat(200),
  json: JSON.stringify(
    Array.from({ length: 600 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'], v: i * 3.5 })),
  ),
  base64: Buffer.from(Array.from({ length: 12_000 }, (_, i) => (i * 7919) % 256)).toString('base64'),
  cjk: '上下文窗口的使用情况应当如实显示，日本語のテキストも同じです。'.repeat(300),
};

describe('context that tells the truth', () => {
  for (const [kind, text] of Object.entries(samples)) {
    it(`estimates a ${kind} prompt within 5% of what the API counts, system prompt and tools included`, async () => {
      const s = fx.session({ model: SONNET });
      const rec = recordEvents(s);
      fx.fake.enqueue({ text: 'ok', usage: { output_tokens: 1 } });
      await (await s.submit(text)).completed;
      const estimate = rec.of('context_update')[0]?.[0].usedTokens ?? 0;
      const counted = fakeInputTokens(fx.fake.requests[0]);
      console.log(
        `${kind}: estimate ${estimate}, API ${counted} (${((estimate / counted - 1) * 100).toFixed(1)}%)`,
      );
      expect(Math.abs(estimate / counted - 1)).toBeLessThan(0.05);
    });
  }

  it('a first request is not shown as a few tokens: the system prompt and tool definitions count', async () => {
    const s = fx.session({ model: SONNET });
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: 'ok' });
    await (await s.submit('hi')).completed;
    const estimate = rec.of('context_update')[0]?.[0].usedTokens ?? 0;
    expect(estimate).toBeGreaterThan(500);
    expect(Math.abs(estimate / fakeInputTokens(fx.fake.requests[0]) - 1)).toBeLessThan(0.05);
  });

  it('an image counts by its size, not as base64 text', async () => {
    const s = fx.session({ model: SONNET });
    const rec = recordEvents(s);
    fx.fake.enqueue({ text: 'ok' });
    await (
      await s.submit({
        text: 'see',
        images: [{ mediaType: 'image/png', data: pngBase64(1000, 750, 2_000_000) }],
      })
    ).completed;
    const estimate = rec.of('context_update')[0]?.[0].usedTokens ?? 0;
    expect(Math.abs(estimate - fakeInputTokens(fx.fake.requests[0]))).toBeLessThan(200);
  });

  it('near the guard the token-counting endpoint decides; far from it, no count is asked', async () => {
    const provider = new AnthropicProvider({
      apiKey: API_KEY,
      baseURL: fx.fake.url,
      maxRetries: 0,
      models: { contextWindow: 4_000 },
    });
    const s = fx.session({ model: SONNET, provider, autoCompactThreshold: false });
    fx.fake.enqueue({ text: 'ok' });
    await (await s.submit('hi')).completed;
    expect(fx.fake.countRequests).toHaveLength(0);
    // About 3,400 tokens of 4,000 with the system prompt and the tools: within reach of the 95% guard.
    fx.fake.enqueue({ text: 'ok' });
    await (await s.submit('word '.repeat(1_200))).completed;
    expect(fx.fake.countRequests).toHaveLength(1);
    expect(fx.fake.requests).toHaveLength(2);
    expect(s.getContextState().maxTokens).toBe(4_000);
  });
});
