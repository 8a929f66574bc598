/**
 * Per-model settings are checked against the registry at start-up: a level
 * or mode the model refuses stops the bot with a sentence naming the
 * setting, the model and what it accepts (Effort page; Sonnet 5.5 migration
 * guide), and every model in the registry has a price.
 */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { isErrorCode } from '../../src/errors.js';
import {
  AnthropicProvider,
  checkModelSettings,
  DEFAULT_PRICES,
  getModelInfo,
  KNOWN_MODELS,
  priceFor,
} from '../../src/provider/index.js';
import { buildRequestBody } from '../../src/provider/request.js';

const env = (more: Record<string, string>) => ({ ANTHROPIC_API_KEY: 'k', ...more });

describe('per-model settings', () => {
  it('refuses an effort level the model does not have, naming the setting, the model and the accepted levels', () => {
    let caught: unknown;
    try {
      checkModelSettings('claude-opus-4-6', { effort: 'xhigh' });
    } catch (err) {
      caught = err;
    }
    expect(isErrorCode(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toBe(
      'SWITCHBOARD_EFFORT=xhigh is not accepted by claude-opus-4-6: it accepts low, medium, high, max (or leave SWITCHBOARD_EFFORT unset for its default).',
    );
    expect(() => checkModelSettings('claude-sonnet-4-5', { effort: 'low' })).toThrow(
      /takes no effort setting/,
    );
    expect(() => checkModelSettings('claude-opus-4-5', { effort: 'max' })).toThrow(/low, medium, high \(/);
    expect(() => checkModelSettings('claude-opus-5', { thinking: 'between_tools' })).toThrow(
      /SWITCHBOARD_THINKING=between_tools is not accepted by claude-opus-5/,
    );
    for (const ok of ['claude-sonnet-5-5', 'claude-opus-4-7', 'claude-fable-5-2'])
      expect(() => checkModelSettings(ok, { effort: 'xhigh' })).not.toThrow();
    // A model the registry does not know is described by settings, not refused.
    expect(() => checkModelSettings('my-proxy-model', { effort: 'max' })).not.toThrow();
  });

  it('stops loading the configuration and the provider, not a chat turn', () => {
    expect(() =>
      loadConfig({
        env: env({ SWITCHBOARD_MODEL: 'claude-opus-4-6', SWITCHBOARD_EFFORT: 'xhigh' }),
        argv: [],
      }),
    ).toThrow(/SWITCHBOARD_EFFORT=xhigh is not accepted by claude-opus-4-6/);
    expect(() => new AnthropicProvider({ apiKey: 'k', model: 'claude-opus-4-6', effort: 'xhigh' })).toThrow(
      /accepts low, medium, high, max/,
    );
  });

  it('the ready bot (as npm start runs it) exits 2 with that sentence', () => {
    const root = resolve(import.meta.dirname, '../..');
    const run = spawnSync(join(root, 'node_modules/.bin/tsx'), [join(root, 'src/main.ts'), '--console'], {
      // No .env here: only the settings the test gives.
      cwd: tmpdir(),
      env: {
        PATH: process.env.PATH ?? '',
        ANTHROPIC_API_KEY: 'sk-test',
        SWITCHBOARD_MODEL: 'claude-opus-4-6',
        SWITCHBOARD_EFFORT: 'xhigh',
        SWITCHBOARD_DATA_DIR: '/nonexistent-switchboard-data',
      },
      input: '',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('SWITCHBOARD_EFFORT=xhigh is not accepted by claude-opus-4-6');
  });

  it('asks Opus 4.6 and Sonnet 4.6 for adaptive thinking, as their model pages say', () => {
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6']) {
      const { body } = buildRequestBody(
        {
          model,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
          tools: [],
          maxTokens: 10,
        },
        getModelInfo(model),
        { thinking: 'adaptive' },
      );
      expect(body.thinking, model).toEqual({ type: 'adaptive' });
    }
  });

  it('has a price for every model in the registry; Fable and Mythos 5.2 have their own row', () => {
    for (const model of KNOWN_MODELS) expect(priceFor(model), model).toBeDefined();
    for (const model of ['claude-fable-5-2', 'claude-mythos-5-2']) {
      expect(priceFor(model)).toBe(DEFAULT_PRICES[model]);
      expect(priceFor(model)).toMatchObject({
        input: 8,
        output: 40,
        cacheRead: 0.2,
        cacheWrite5m: 10,
        cacheWrite1h: 16,
      });
    }
    expect(priceFor('claude-fable-5-1')).toMatchObject({ input: 10, output: 50, cacheRead: 0.25 });
  });
});
