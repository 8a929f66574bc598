import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import {
  DEFAULT_PRICES,
  formatUsd,
  ledgerCost,
  parsePriceOverrides,
  priceFor,
  priceTable,
} from '../../src/provider/pricing.js';
import { emptyLedger, recordUsage } from '../../src/session/usage-ledger.js';

const AT = Date.parse('2026-12-01T10:00:00Z');

describe('prices', () => {
  it('matches dated ids by the longest prefix', () => {
    expect(priceFor('claude-sonnet-5-5-20260928')).toBe(DEFAULT_PRICES['claude-sonnet-5-5']);
    expect(priceFor('claude-sonnet-5')).toBe(DEFAULT_PRICES['claude-sonnet-5']);
    expect(priceFor('claude-opus-4-1-20250805')?.input).toBe(15);
    expect(priceFor('gpt-9')).toBeUndefined();
  });

  it('prices each kind of token at its own rate, the 1-hour writes and long prompts included', () => {
    const ledger = emptyLedger();
    // Sonnet 5.5: $2 in, $10 out, $2.50 5m write, $4 1h write, $0.10 read per MTok.
    recordUsage(
      ledger,
      'claude-sonnet-5-5',
      {
        inputTokens: 1_000_000,
        outputTokens: 1_000_000,
        cacheReadInputTokens: 1_000_000,
        cacheCreationInputTokens: 2_000_000,
        cacheCreation: { ephemeral5mInputTokens: 1_000_000, ephemeral1hInputTokens: 1_000_000 },
      },
      AT,
    );
    expect(ledgerCost(ledger).usd).toBeCloseTo(2 + 10 + 0.1 + 2.5 + 4, 9);
    // Haiku 5.5 bills a prompt over 100,000 tokens at its long-prompt prices ($0.50 in, $2.50 out).
    const haiku = emptyLedger();
    recordUsage(haiku, 'claude-haiku-5-5', { inputTokens: 50_000, outputTokens: 1000 }, AT);
    recordUsage(haiku, 'claude-haiku-5-5', { inputTokens: 150_000, outputTokens: 1000 }, AT);
    expect(ledgerCost(haiku).usd).toBeCloseTo(
      (50_000 * 0.1 + 1000 * 0.5 + 150_000 * 0.5 + 1000 * 2.5) / 1e6,
      12,
    );
    expect(ledgerCost(haiku, DEFAULT_PRICES, '2026-11-30').usd).toBe(0);
  });

  it('reads overrides and refuses a malformed entry with the fix', () => {
    const table = priceTable(parsePriceOverrides('claude-sonnet-5-5=1,5,1.25,2,0.05; my-model=0,0,0,0,0'));
    expect(priceFor('claude-sonnet-5-5-20260928', table)?.output).toBe(5);
    expect(priceFor('my-model-v2', table)?.input).toBe(0);
    for (const bad of ['claude-sonnet-5-5=1,2,3', 'x=1,2,3,4,five', '=1,2,3,4,5']) {
      try {
        parsePriceOverrides(bad);
        throw new Error(`accepted ${bad}`);
      } catch (err) {
        expect(isErrorCode(err, 'CONFIG_INVALID')).toBe(true);
        expect((err as Error).message).toMatch(
          /SWITCHBOARD_PRICES: .* e\.g\. claude-sonnet-5-5=2,10,2\.5,4,0\.1/,
        );
      }
    }
    expect(formatUsd(0.01234)).toBe('$0.0123');
    expect(formatUsd(12.345)).toBe('$12.35');
  });
});
