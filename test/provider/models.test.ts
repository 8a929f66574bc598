import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { AnthropicProvider, DEFAULT_MODEL, getModelInfo } from '../../src/provider/index.js';

describe('model registry', () => {
  it('knows the current models (models overview, 2026-12-01): 1M window, 128K output', () => {
    for (const id of [
      'claude-sonnet-5-5',
      'claude-opus-5-5',
      'claude-haiku-5-5',
      'claude-fable-5-1',
      'claude-fable-5-2',
      'claude-sonnet-5',
      'claude-opus-5',
      'claude-opus-4-8',
    ]) {
      expect(getModelInfo(id), id).toMatchObject({
        contextWindow: 1_000_000,
        maxOutputTokens: 128_000,
        known: true,
      });
    }
    expect(DEFAULT_MODEL).toBe('claude-sonnet-5-5');
  });

  it('matches by prefix, so dated ids resolve; a more specific id wins', () => {
    expect(getModelInfo('claude-sonnet-4-6-20260101').contextWindow).toBe(1_000_000);
    expect(getModelInfo('claude-opus-4-5-20251101').contextWindow).toBe(200_000);
    // Sonnet 4.5 reaches 1M only with a beta switchboard does not send: its requests get 200K.
    expect(getModelInfo('claude-sonnet-4-5-20250929').contextWindow).toBe(200_000);
    expect(getModelInfo('claude-haiku-4-5')).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(getModelInfo('claude-opus-5-5').displayUpdates).toBe(true);
    expect(getModelInfo('claude-opus-5').displayUpdates).toBe(false);
  });

  it('gives unknown models 200K and warns once per model; settings describe them', () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (l: string) => lines.push(l) } });
    const name = `mystery-model-${Date.now()}`;
    expect(getModelInfo(name, {}, logger)).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 8_192,
      known: false,
    });
    getModelInfo(name, {}, logger);
    expect(lines.filter((l) => l.includes(name))).toHaveLength(1);
    expect(lines[0]).toContain('SWITCHBOARD_CONTEXT_WINDOW');
    const provider = new AnthropicProvider({
      apiKey: 'k',
      models: { contextWindow: 400_000, maxOutputTokens: 32_000 },
    });
    expect(provider.describeModel(`${name}-x`)).toMatchObject({
      contextWindow: 400_000,
      maxOutputTokens: 32_000,
    });
  });
});
