/**
 * Smoke tests of the benchmark on tiny configurations, so the bench code
 * cannot rot. They check what the figures must mean (the outbox keeps the
 * pace and the exact text; a naive baseline does not), never how fast
 * anything is.
 */
import { describe, expect, it } from 'vitest';
import { runConcurrency } from '../../bench/concurrency.js';
import { runE2eTelegram } from '../../bench/e2e-telegram.js';
import { runPersistence } from '../../bench/persistence.js';
import { platformCases } from '../../bench/platforms.js';
import { shortAnswer } from '../../bench/profiles.js';
import { runRendering } from '../../bench/rendering.js';
import { parseArgs } from '../../bench/run.js';
import { quantile, table } from '../../bench/stats.js';
import { runStreaming } from '../../bench/streaming.js';
import { runToolLatency } from '../../bench/tool-latency.js';
import { analyseVisibility } from '../../bench/visibility.js';
import { markdown } from '../../src/bot/format/dialect.js';
import type { RecordedOp } from '../fakes/recording-adapter.js';

function op(time: number, kind: RecordedOp['op'], messageId: string, text: string): RecordedOp {
  return { seq: time, time, op: kind, chat: 'test:1', messageId, text, format: markdown, ok: true };
}

describe('bench: visibility analysis', () => {
  const deltas = [
    { at: 0, text: 'Hello brave ' },
    { at: 100, text: 'new world. ' },
    { at: 200, text: 'The end.' },
  ];
  const source = deltas.map((d) => d.text).join('');
  const base = {
    deltas,
    source,
    dialect: () => markdown,
    exclude: new Set<string>(),
    statusLines: [],
  };

  it('measures each delta until a completed call shows it, and checks the final text', () => {
    const v = analyseVisibility({
      ...base,
      ops: [
        op(150, 'send', '1', 'Hello brave new'),
        op(1150, 'edit', '1', 'Hello brave new world. The end.'),
      ],
    });
    // "brave" completed by delta 1 (seen at 150); "new world." by delta 2 (1150); "The end." by delta 3.
    expect(v.staleness).toEqual([150, 1050, 950]);
    expect(v.firstVisibleMs).toBe(150);
    expect(v.fidelity).toBe(true);
  });

  it('reports text that differs at the end, and messages that are not the reply are left out', () => {
    const v = analyseVisibility({
      ...base,
      exclude: new Set(['9']),
      ops: [op(150, 'send', '1', 'Hello brave new world.'), op(300, 'send', '9', 'The end.')],
    });
    expect(v.fidelity).toBe(false);
    expect(v.fidelityNote).toMatch(/differs at token 5/);
    expect(v.neverShown).toBe(1);
  });
});

describe('bench: parts on tiny configurations', () => {
  it('streaming: the outbox keeps the declared pace and the exact text; edit-on-every-delta does not', async () => {
    const cases = platformCases().filter((c) => c.name === 'discord' || c.name === 'telegram-private');
    const results = await runStreaming({ profiles: [shortAnswer()], cases });
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.ours.violations).toBe(0);
      expect(r.ours.fidelity).toBe(true);
      expect(r.ours.neverShown).toBe(0);
      expect(r.ours.calls).toBeGreaterThan(1);
      expect(r.baselines['every-delta'].violations).toBeGreaterThan(0);
      expect(r.ratios['every-delta'].calls).toBeLessThan(1);
    }
  });

  it('persistence: appends, list() and a cold start that resumes a stored session', async () => {
    const f = await runPersistence({ historyLengths: [10, 200], appends: 3, sessions: 30 });
    expect(f.appendMedianMs.map((a) => a.messages)).toEqual([10, 200]);
    expect(f.listValid).toBe(30);
    expect(f.resumedMessages).toBe(6);
    expect(f.targets.map((t) => t.name)).toHaveLength(3);
  });

  it('concurrency: every chat streams its whole reply through the real core', async () => {
    const f = await runConcurrency({
      streams: 5,
      idleChats: 10,
      replyChars: 40,
      deltaChars: 8,
      intervalMs: 5,
      idleReleaseMs: 50,
      levels: [2],
    });
    expect(f.repliesWhole).toBe(5);
    expect(f.levels.map((l) => [l.streams, l.deltas])).toEqual([[2, 10]]);
    expect(f.deltas).toBeGreaterThanOrEqual(25);
    expect(Number.isFinite(f.heapPerIdleChatKB)).toBe(true);
  });

  it('e2e: turns through grammy and the fake Bot API arrive whole', async () => {
    const f = await runE2eTelegram({
      chats: 2,
      turnsPerChat: 2,
      chunks: 3,
      chunkDelayMs: 10,
      timeoutMs: 15_000,
    });
    expect(f.turnsDone).toBe(4);
    expect(f.repliesWhole).toBe(4);
    expect(f.rateLimited).toBe(0);
  });
});

describe('bench: tools', () => {
  it('times first and later tool calls with the sandbox on and off, beside the floors', async () => {
    const f = await runToolLatency({ turns: 1, modelMs: 10 });
    expect(f.rows.map((r) => r.what)).toContain('Bash `true`, first call of a turn (sandbox on)');
    expect(f.rows.map((r) => r.what)).toContain('floor: bubblewrap starting `true` (execFile)');
    for (const r of f.rows) expect(r.medianMs).toBeGreaterThan(0);
  });
});

describe('bench: helpers', () => {
  it('parses --only and refuses unknown parts', () => {
    expect(parseArgs(['--only', 'streaming,persistence']).only).toEqual(['streaming', 'persistence']);
    expect(parseArgs([]).only).toEqual([
      'streaming',
      'concurrency',
      'persistence',
      'e2e',
      'cost',
      'rendering',
      'tools',
    ]);
    expect(() => parseArgs(['--only', 'speed'])).toThrow(/unknown part "speed"/);
  });

  it('rendering: every hostile shape is measured, and checked against its target', () => {
    const f = runRendering({ runs: 3 });
    expect(f.shapes.map((s) => s.shape)).toEqual(['quotes3000', 'lists2000', 'table44k', 'brackets1000']);
    for (const s of f.shapes) expect(s.cpuMedianMs).toBeGreaterThanOrEqual(0);
    expect(f.targets).toHaveLength(4);
  });

  it('quantiles by nearest rank and aligned tables', () => {
    expect(quantile([5, 1, 4, 2, 3], 0.95)).toBe(5);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(table(['a', 'b'], [['x', 1.5]]).split('\n')).toEqual(['a     b', '-  ----', 'x  1.50']);
  });
});
