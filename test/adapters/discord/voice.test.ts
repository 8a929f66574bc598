/**
 * Voice messages and audio attachments on Discord, end to end: the ready bot
 * from its settings, real discord.js against the fake Discord (a voice
 * message is flag 1 << 13 with one audio/ogg attachment carrying
 * `duration_secs`), the fake transcription endpoint, and real speech made on
 * this machine (test/fixtures/voice/make.sh).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { type FakeTranscription, startFakeTranscription } from '../../fakes/transcription.js';
import { botTexts, startApp } from './app.js';

const OGG = await readFile(new URL('../../fixtures/voice/voice.ogg', import.meta.url));
const MP3 = await readFile(new URL('../../fixtures/voice/voice.mp3', import.meta.url));
const SPOKEN = 'Please list the files in the workspace.';

describe('Discord: voice messages', () => {
  let fake: FakeDiscord;
  let anthropic: FakeAnthropic;
  let stt: FakeTranscription;
  let root: string;
  let app: RunningApp | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord();
    anthropic = await startFakeAnthropic();
    stt = await startFakeTranscription();
    root = await mkdtemp(join(tmpdir(), 'switchboard-discord-voice-'));
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await fake.close();
    await anthropic.close();
    await stt.close();
    await rm(root, { recursive: true, force: true });
  });

  // Discord's pace scaled down on both sides (startApp's `scaled`): the note's line and the reply come quickly.
  const start = (env: Record<string, string> = {}) =>
    startApp(fake, anthropic, root, {
      scaled: true,
      env: { SWITCHBOARD_TRANSCRIBE_URL: stt.url, SWITCHBOARD_TRANSCRIBE_MODEL: 'whisper-1', ...env },
    });

  const said = (channelId: string, pattern: RegExp) =>
    fake.waitFor(
      () => botTexts(fake, channelId).find((m) => pattern.test(m.content)),
      `a message ${pattern}`,
    );

  /** Alice posts in her DM with the bot; returns the DM's id. */
  const post = (
    content: string,
    file: { filename: string; contentType: string; data: Buffer; durationSecs?: number },
  ) => {
    const dm = fake.dmChannel(fake.user('alice'));
    const voice = file.durationSecs !== undefined;
    fake.userMessage({ channelId: dm.id, author: fake.user('alice'), content, voice, files: [file] });
    return dm;
  };

  it('a voice message in a DM is transcribed as it came, shown as heard and answered', async () => {
    app = await start();
    stt.say(SPOKEN);
    const dm = post('', {
      filename: 'voice-message.ogg',
      contentType: 'audio/ogg',
      data: OGG,
      durationSecs: 2.4,
    });
    await said(dm.id, /You said: /);
    expect(botTexts(fake, dm.id)[0]?.content).toBe(`🎙 "${SPOKEN}"`);
    expect(stt.requests[0]?.file.filename).toBe('voice-message.ogg');
    expect(stt.requests[0]?.file.data.equals(OGG)).toBe(true);
    expect(JSON.stringify(anthropic.requests[0].messages)).toContain(SPOKEN);
  });

  it('an audio attachment with text: both reach the model', async () => {
    app = await start();
    stt.say(SPOKEN);
    const dm = post('notes from the call', { filename: 'call.mp3', contentType: 'audio/mpeg', data: MP3 });
    await said(dm.id, /You said: /);
    expect(stt.requests[0]?.file.filename).toBe('call.mp3');
    const sent = JSON.stringify(anthropic.requests[0].messages);
    expect(sent).toContain('notes from the call');
    expect(sent).toContain(SPOKEN);
  });

  it('a voice message longer than the limit is never downloaded', async () => {
    app = await start({ SWITCHBOARD_MAX_AUDIO_SECONDS: '30' });
    const dm = post('', {
      filename: 'voice-message.ogg',
      contentType: 'audio/ogg',
      data: OGG,
      durationSecs: 45,
    });
    await said(dm.id, /That voice note is 45 seconds long; I transcribe up to 30 seconds/);
    expect([...fake.downloads.values()]).toEqual([]);
    expect(stt.requests).toHaveLength(0);
    expect(anthropic.requests).toHaveLength(0);
  });
});
