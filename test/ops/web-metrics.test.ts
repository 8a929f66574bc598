/** /metrics counts the web searches the API ran, and prices them into the cost counter. */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { costOf, priceFor } from '../../src/provider/pricing.js';
import { totalsOf } from '../../src/session/usage-ledger.js';

describe('metrics of the web tools', () => {
  it('counts searches per model and adds $10 per 1,000 to the cost', async () => {
    const metrics = createMetrics();
    const usage = { inputTokens: 1000, outputTokens: 100, webSearchRequests: 3 };
    const price = priceFor('claude-sonnet-5-5');
    if (!price) throw new Error('no price for claude-sonnet-5-5');
    const usd = costOf(totalsOf(usage), price);
    expect(usd).toBeCloseTo((1000 * 2 + 100 * 10) / 1_000_000 + 0.03, 10);
    metrics.modelUsage('claude-sonnet-5-5', usage, usd);
    const text = await metrics.registry.metrics();
    expect(text).toContain('switchboard_web_searches_total{model="claude-sonnet-5-5"} 3');
  });
});
