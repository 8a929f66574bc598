/**
 * Voice notes on Telegram, end to end: switchboard started from its settings
 * as `npm start` starts it, the real grammY client against the fake Bot API
 * (getFile and the file endpoint), the fake transcription endpoint, and real
 * speech made on this machine in the Ogg/Opus a Telegram voice note is
 * (test/fixtures/voice/make.sh).
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { voiceUpdate } from '../../fakes/telegram/index.js';
import { type FakeTranscription, startFakeTranscription } from '../../fakes/transcription.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

const OGG = await readFile(new URL('../../fixtures/voice/voice.ogg', import.meta.url));
const MP3 = await readFile(new URL('../../fixtures/voice/voice.mp3', import.meta.url));
const SPOKEN = 'Please list the files in the workspace.';
const dm = { chatId: ANN.id, user: ANN };

let world: AppWorld | undefined;
let stt: FakeTranscription | undefined;
afterEach(async () => {
  await world?.close();
  await stt?.close();
  world = undefined;
  stt = undefined;
});

async function start(extra: Record<string, string> = {}) {
  stt = await startFakeTranscription({ key: 'tk-telegram-0123' });
  world = await createAppWorld();
  await world.start({
    SWITCHBOARD_TRANSCRIBE_URL: stt.url,
    SWITCHBOARD_TRANSCRIBE_MODEL: 'gpt-4o-mini-transcribe',
    SWITCHBOARD_TRANSCRIBE_KEY: 'tk-telegram-0123',
    ...extra,
  });
  return { world, stt };
}

const texts = (w: AppWorld) => w.telegram.botMessages(ANN.id).map((m) => m.text);

describe('Telegram: voice notes', () => {
  it('a voice note: fetched, transcribed as .ogg, shown as heard, answered', async () => {
    const { world, stt } = await start();
    stt.say(SPOKEN);
    const fileId = world.telegram.addFile(OGG, 'voice/file_12.oga');
    world.telegram.pushUpdate(voiceUpdate(dm, fileId, { duration: 2, size: OGG.length }));
    await world.telegram.waitFor(() => texts(world).some((t) => t.startsWith('You said:')), 10_000);
    expect(texts(world)[0]).toBe(`🎙 "${SPOKEN}"`);
    expect(stt.requests[0]?.file.filename).toBe('file_12.ogg');
    expect(stt.requests[0]?.file.data.equals(OGG)).toBe(true);
    expect(stt.requests[0]?.model).toBe('gpt-4o-mini-transcribe');
    expect(JSON.stringify(world.anthropic.requests[0].messages)).toContain(SPOKEN);
  });

  it('an audio file with a caption: the caption and the transcript both reach the model', async () => {
    const { world, stt } = await start();
    stt.say(SPOKEN);
    const fileId = world.telegram.addFile(MP3, 'music/file_3.mp3');
    world.telegram.pushUpdate(
      voiceUpdate(dm, fileId, {
        duration: 2,
        caption: 'from the meeting',
        audio: { name: 'memo.mp3', mimeType: 'audio/mpeg' },
      }),
    );
    await world.telegram.waitFor(() => texts(world).some((t) => t.startsWith('You said:')), 10_000);
    expect(stt.requests[0]?.file.filename).toBe('memo.mp3');
    const said = JSON.stringify(world.anthropic.requests[0].messages);
    expect(said).toContain('from the meeting');
    expect(said).toContain(SPOKEN);
  });

  it('a note longer than SWITCHBOARD_MAX_AUDIO_SECONDS is never fetched', async () => {
    const { world, stt } = await start({ SWITCHBOARD_MAX_AUDIO_SECONDS: '60' });
    const fileId = world.telegram.addFile(OGG, 'voice/file_13.oga');
    world.telegram.pushUpdate(voiceUpdate(dm, fileId, { duration: 61 }));
    await world.telegram.waitFor(() => texts(world).length > 0, 10_000);
    expect(texts(world)).toEqual([
      '⚠️ That voice note is 1 minute 1 second long; I transcribe up to 1 minute, so I left it out. Please send a shorter one, or type it.',
    ]);
    expect(world.telegram.callsTo('getFile')).toHaveLength(0);
    expect(stt.requests).toHaveLength(0);
    expect(world.anthropic.requests).toHaveLength(0);
  });

  it('without a transcription service: the one line, and nothing is fetched', async () => {
    world = await createAppWorld();
    await world.start();
    const fileId = world.telegram.addFile(OGG, 'voice/file_14.oga');
    world.telegram.pushUpdate(voiceUpdate(dm, fileId, { duration: 2 }));
    const w = world;
    await w.telegram.waitFor(() => texts(w).length > 0, 10_000);
    expect(texts(w)).toEqual(["I can't read voice messages yet; please send text."]);
    expect(w.telegram.callsTo('getFile')).toHaveLength(0);
  });
});
