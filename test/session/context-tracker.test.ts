import { describe, expect, it } from 'vitest';
import { ContextWindowTracker, estimateTokens } from '../../src/session/index.js';
import type { HistoryMessage } from '../../src/session/types.js';

function msg(role: 'user' | 'assistant', text: string): HistoryMessage {
  return {
    id: `id-${Math.random()}`,
    role,
    content: [{ type: 'text', text }],
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('ContextWindowTracker', () => {
  it('estimates from message content only, not ids or metadata', () => {
    const m = msg('user', 'x'.repeat(600));
    expect(estimateTokens([m])).toBe(100);
    const withMeta = { ...m, id: 'y'.repeat(4000), author: 'z'.repeat(4000) };
    expect(estimateTokens([withMeta])).toBe(100);
    const tool: HistoryMessage = {
      ...m,
      content: [{ type: 'tool_result', toolUseId: 'q'.repeat(400), content: 'r'.repeat(60) }],
    };
    expect(estimateTokens([tool])).toBe(10);
  });

  it('uses the reported usage (input + cache + output) right after a reply', () => {
    const tracker = new ContextWindowTracker({ maxTokens: 200_000 });
    const history = [msg('user', 'hi'), msg('assistant', 'hello')];
    const state = tracker.reportUsage(
      {
        inputTokens: 50_000,
        outputTokens: 1_000,
        cacheReadInputTokens: 20_000,
        cacheCreationInputTokens: 14_000,
      },
      history.length,
    );
    expect(state).toEqual({
      maxTokens: 200_000,
      usedTokens: 85_000,
      usedPercentage: 42.5,
      remainingPercentage: 57.5,
    });
    expect(tracker.update(history).usedTokens).toBe(85_000);
  });

  it('with unsent messages takes the max of estimate, last report and the floor', () => {
    const tracker = new ContextWindowTracker({ maxTokens: 100_000 });
    const history = [msg('user', 'hi'), msg('assistant', 'hello')];
    tracker.reportUsage({ inputTokens: 1_000, outputTokens: 10 }, history.length);
    // A big unsent prompt is not hidden behind the older, smaller report.
    history.push(msg('user', 'x'.repeat(40_000)));
    expect(tracker.update(history).usedTokens).toBe(estimateTokens(history));
    // A small unsent prompt does not lower the figure below the report.
    const small = [msg('user', 'hi'), msg('assistant', 'hello'), msg('user', 'ok')];
    expect(tracker.update(small).usedTokens).toBe(1_010);
    expect(tracker.update(small, 50_000).usedTokens).toBe(50_000);
  });

  it('reset forgets the report and re-estimates; restores from saved figures', () => {
    const tracker = new ContextWindowTracker({ maxTokens: 1_000 });
    tracker.reportUsage({ inputTokens: 900, outputTokens: 0 }, 2);
    expect(tracker.reset([msg('user', 'x'.repeat(600))]).usedTokens).toBe(100);
    expect(tracker.reportedTokens).toBeUndefined();
    const restored = new ContextWindowTracker({ maxTokens: 1_000, reportedTokens: 500, reportedAtLength: 1 });
    expect(restored.getState().usedPercentage).toBe(50);
  });
});
