import { describe, expect, it } from 'vitest';
import { chooseCacheLifetime } from '../../src/provider/cache.js';

const MIN = 60_000;
/** Prompt times (ms) with these gaps between them, in minutes. */
function times(...gapsMin: number[]): number[] {
  const out = [0];
  for (const g of gapsMin) out.push((out.at(-1) ?? 0) + g * MIN);
  return out;
}

describe('chooseCacheLifetime', () => {
  it('auto: 5 minutes for a new chat and quick replies, an hour for replies minutes apart', () => {
    expect(chooseCacheLifetime('auto', [])).toBe('5m');
    expect(chooseCacheLifetime('auto', times())).toBe('5m');
    expect(chooseCacheLifetime('auto', times(0.5, 0.5, 1))).toBe('5m');
    expect(chooseCacheLifetime('auto', times(10))).toBe('1h');
    expect(chooseCacheLifetime('auto', times(0.5, 10, 12))).toBe('1h');
    // One long pause among quick replies does not buy an hour for every call.
    expect(chooseCacheLifetime('auto', times(10, 0.5, 0.5))).toBe('5m');
  });

  it('auto never pays for an hour that cannot pay back: gaps longer than the lifetime get 5 minutes', () => {
    expect(chooseCacheLifetime('auto', times(90, 120, 70))).toBe('5m');
  });

  it('a fixed setting is used as it is', () => {
    expect(chooseCacheLifetime('1h', times(0.1))).toBe('1h');
    expect(chooseCacheLifetime('5m', times(30))).toBe('5m');
    expect(chooseCacheLifetime('off', times(30))).toBe('off');
  });
});
