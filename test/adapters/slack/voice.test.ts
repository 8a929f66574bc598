/**
 * Audio clips and audio files on Slack, end to end: the ready bot from its
 * settings, real Bolt against the fake Slack, the fake transcription
 * endpoint, and real speech made on this machine in the containers Slack
 * clips come in (test/fixtures/voice/make.sh): MP4/AAC from the apps
 * (`audio_message.mp4`, sometimes typed video/mp4) and WebM/Opus from the
 * browser, both marked `subtype: 'slack_audio'` with `duration_ms`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../../fakes/slack/index.js';
import { type FakeTranscription, startFakeTranscription } from '../../fakes/transcription.js';
import { startSlackApp } from './app.js';

const MP4 = await readFile(new URL('../../fixtures/voice/voice.mp4', import.meta.url));
const WEBM = await readFile(new URL('../../fixtures/voice/voice.webm', import.meta.url));
const MP3 = await readFile(new URL('../../fixtures/voice/voice.mp3', import.meta.url));
const SPOKEN = 'Please list the files in the workspace.';

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let stt: FakeTranscription;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  anthropic = await startFakeAnthropic();
  stt = await startFakeTranscription({ key: 'tk-slack-0123' });
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-voice-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await stt.close();
  await rm(root, { recursive: true, force: true });
});

const start = (env: Record<string, string> = {}) =>
  startSlackApp(fake, anthropic, root, {
    SWITCHBOARD_TRANSCRIBE_URL: stt.url,
    SWITCHBOARD_TRANSCRIBE_MODEL: 'gpt-4o-transcribe',
    SWITCHBOARD_TRANSCRIBE_KEY: 'tk-slack-0123',
    ...env,
  });

const texts = () => fake.botMessages('D1').map(visibleText);
const shows = (pattern: RegExp) => () => texts().some((t) => pattern.test(t));

describe('Slack: audio clips', () => {
  it.each([
    ['an app clip (MP4/AAC typed video/mp4)', 'audio_message.mp4', 'video/mp4', MP4, 'audio_message.m4a'],
    ['a browser clip (WebM/Opus)', 'audio_message.webm', 'audio/webm', WEBM, 'audio_message.webm'],
  ])('%s is transcribed as it came, shown as heard and answered', async (_, name, type, data, uploaded) => {
    app = await start();
    stt.say(SPOKEN);
    const clip = fake.addFile(name, type, data, { subtype: 'slack_audio', duration_ms: 2400 });
    await fake.userMessage({ channel: 'D1', user: 'U1', text: '', files: [clip] });
    await fake.until(shows(/You said: /), 10_000, 'the reply');
    expect(texts()[0]).toBe(`🎙 "${SPOKEN}"`);
    expect(stt.requests[0]?.file.filename).toBe(uploaded);
    expect(stt.requests[0]?.file.data.equals(data)).toBe(true);
    expect(fake.state.fileDownloads).toEqual([clip.id]);
    expect(JSON.stringify(anthropic.requests[0].messages)).toContain(SPOKEN);
  });

  it('an audio file with a question: both reach the model', async () => {
    app = await start();
    stt.say(SPOKEN);
    const file = fake.addFile('standup.mp3', 'audio/mpeg', MP3);
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'what did I ask for?', files: [file] });
    await fake.until(shows(/You said: /), 10_000, 'the reply');
    const sent = JSON.stringify(anthropic.requests[0].messages);
    expect(sent).toContain('what did I ask for?');
    expect(sent).toContain(SPOKEN);
  });

  it('a clip longer than the limit is never downloaded', async () => {
    app = await start({ SWITCHBOARD_MAX_AUDIO_SECONDS: '10' });
    const clip = fake.addFile('audio_message.mp4', 'audio/mp4', MP4, {
      subtype: 'slack_audio',
      duration_ms: 12_000,
    });
    await fake.userMessage({ channel: 'D1', user: 'U1', text: '', files: [clip] });
    await fake.until(
      shows(/That voice note is 12 seconds long; I transcribe up to 10 seconds/),
      10_000,
      'the answer',
    );
    expect(fake.state.fileDownloads).toEqual([]);
    expect(stt.requests).toHaveLength(0);
  });
});
