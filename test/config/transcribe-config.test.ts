/** The voice-note settings: a transcription endpoint with its model and key, the length limit, keeping audio, a price. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { SwitchboardError } from '../../src/errors.js';

const base = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };
const ENDPOINT = 'http://localhost:8000/v1/audio/transcriptions';

function problem(env: Record<string, string>): string {
  try {
    loadConfig({ env: { ...base, ...env } });
  } catch (err) {
    expect(err).toBeInstanceOf(SwitchboardError);
    return (err as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('transcription settings', () => {
  it('are off when unset', () => {
    expect(loadConfig({ env: base }).transcription).toBeUndefined();
  });

  it('read the endpoint, model and key, with the defaults for the rest', () => {
    const config = loadConfig({
      env: {
        ...base,
        SWITCHBOARD_TRANSCRIBE_URL: ENDPOINT,
        SWITCHBOARD_TRANSCRIBE_MODEL: 'Systran/faster-whisper-small',
        SWITCHBOARD_TRANSCRIBE_KEY: 'tk-0123456789',
      },
    });
    expect(config.transcription).toEqual({
      url: ENDPOINT,
      model: 'Systran/faster-whisper-small',
      apiKey: 'tk-0123456789',
      maxSeconds: 600,
      keepAudio: true,
    });
    expect(config.secrets).toContain('tk-0123456789');
  });

  it('read the limit, the keep switch and the price', () => {
    const config = loadConfig({
      env: {
        ...base,
        SWITCHBOARD_TRANSCRIBE_URL: ENDPOINT,
        SWITCHBOARD_TRANSCRIBE_MODEL: 'whisper-1',
        SWITCHBOARD_MAX_AUDIO_SECONDS: '120',
        SWITCHBOARD_KEEP_AUDIO: 'false',
        SWITCHBOARD_TRANSCRIBE_PRICE: '0.006',
      },
    });
    expect(config.transcription).toEqual({
      url: ENDPOINT,
      model: 'whisper-1',
      maxSeconds: 120,
      keepAudio: false,
      pricePerMinute: 0.006,
    });
  });

  it('refuse half a setup, and bad values, saying how to fix them', () => {
    expect(problem({ SWITCHBOARD_TRANSCRIBE_URL: ENDPOINT })).toMatch(
      /SWITCHBOARD_TRANSCRIBE_MODEL is needed with SWITCHBOARD_TRANSCRIBE_URL/,
    );
    expect(problem({ SWITCHBOARD_TRANSCRIBE_MODEL: 'whisper-1' })).toMatch(
      /SWITCHBOARD_TRANSCRIBE_URL is not set/,
    );
    expect(problem({ SWITCHBOARD_TRANSCRIBE_URL: 'localhost:8000' })).toMatch(
      /SWITCHBOARD_TRANSCRIBE_URL expected an http\(s\) URL/,
    );
    expect(problem({ SWITCHBOARD_MAX_AUDIO_SECONDS: '0' })).toMatch(/SWITCHBOARD_MAX_AUDIO_SECONDS expected/);
    expect(problem({ SWITCHBOARD_TRANSCRIBE_PRICE: 'cheap' })).toMatch(
      /SWITCHBOARD_TRANSCRIBE_PRICE expected US dollars/,
    );
    const secret = problem({ SWITCHBOARD_TRANSCRIBE_KEY: 'tk-very-secret' });
    expect(secret).not.toContain('tk-very-secret');
  });
});
