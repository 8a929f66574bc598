/**
 * Smoke test of the cost part on a tiny script: it checks what the figures
 * must mean (caching off reads nothing and is the baseline; caching reads and
 * costs less; with 10-minute gaps the 5-minute lifetime loses what the 1-hour
 * one keeps), never the ratios the full run reports.
 */
import { expect, it } from 'vitest';
import { runCost } from '../../bench/cost.js';

it('bench: cost part replays one script with caching off, auto, 5m and 1h', async () => {
  const f = await runCost({ turns: 4, files: 2 });
  expect(f.runs.map((r) => `${r.gap}/${r.cache}`)).toEqual([
    '30 s/off',
    '30 s/auto',
    '30 s/5m',
    '30 s/1h',
    '10 min/off',
    '10 min/auto',
    '10 min/5m',
    '10 min/1h',
  ]);
  const run = (gap: string, cache: string) => f.runs.find((r) => r.gap === gap && r.cache === cache);
  expect(run('30 s', 'off')).toMatchObject({ cacheReads: 0, cacheWrites: 0, costRatio: 1 });
  expect(run('30 s', 'auto')?.hitRate).toBeGreaterThan(0.5);
  expect(run('30 s', 'auto')?.costRatio).toBeLessThan(1);
  expect(run('10 min', '1h')?.cacheReads).toBeGreaterThan(run('10 min', '5m')?.cacheReads ?? 0);
  expect(f.targets).toHaveLength(2);
});
