/**
 * Voice notes through the bot core: a real session behind the recording
 * adapter, the fake transcription endpoint, and real speech made on this
 * machine (test/fixtures/voice/make.sh). What the person sees (the
 * transcript quoted before the reply, or one plain line when nothing could
 * be heard) and what the model gets (the transcript as their message,
 * marked as spoken).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Attachment } from '../../src/bot/adapter-contract.js';
import { createTranscriber } from '../../src/transcribe/index.js';
import { type FakeTranscription, startFakeTranscription } from '../fakes/transcription.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

const OGG = await readFile(new URL('../fixtures/voice/voice.ogg', import.meta.url));
const SPOKEN = 'Please list the files in the workspace.';

let h: BotHarness | undefined;
let fake: FakeTranscription | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = undefined;
  fake = undefined;
});

/** A voice note as an adapter hands it: not downloaded, with a download that counts its calls. */
function voiceNote(
  extra: { [K in keyof Attachment]?: Attachment[K] | undefined } = {},
): Attachment & { fetched: () => number } {
  let fetched = 0;
  const note: Attachment = {
    kind: 'audio',
    name: 'voice.oga',
    mediaType: 'audio/ogg',
    durationSeconds: 3,
    download: async () => {
      fetched++;
      return { ...note, bytes: OGG, size: OGG.length };
    },
  };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete note[key as keyof Attachment];
    else Object.assign(note, { [key]: value });
  }
  return Object.assign(note, { fetched: () => fetched });
}

async function start(
  options: { keepAudio?: boolean; maxSeconds?: number; timeoutMs?: number; pricePerMinute?: number } = {},
) {
  fake = await startFakeTranscription({ key: 'tk-secret' });
  const url = fake.url;
  h = await startBotHarness({
    voice: (clock) => ({
      transcriber: createTranscriber({
        url,
        model: 'whisper-1',
        apiKey: 'tk-secret',
        clock,
        timeoutMs: options.timeoutMs ?? 120_000,
      }),
      ...(options.keepAudio === undefined ? {} : { keepAudio: options.keepAudio }),
      ...(options.maxSeconds === undefined ? {} : { maxSeconds: options.maxSeconds }),
      ...(options.pricePerMinute === undefined ? {} : { pricePerMinute: options.pricePerMinute }),
    }),
  });
  return { h, fake };
}

const lastUserTexts = (h: BotHarness): string[] =>
  h.fakeAnthropic.requests[0].messages
    .at(-1)
    .content.filter((b: { type: string }) => b.type === 'text')
    .map((b: { text: string }) => b.text);

describe('voice notes', () => {
  it('shows what it heard before the reply and hands the model the transcript as spoken words', async () => {
    const { h, fake } = await start();
    fake.say(SPOKEN, 3);
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    const texts = h.texts();
    expect(texts[0]).toBe(`🎙 "${SPOKEN}"`);
    expect(texts[1]).toMatch(/^Alice said: \\\[Voice note, transcribed by speech recognition/);
    const said = lastUserTexts(h).join('\n');
    expect(said).toContain(
      `[Voice note, transcribed by speech recognition; words may be misheard:]\n${SPOKEN}`,
    );
    // Sent as the platform sent it, under the name the API accepts for Ogg.
    expect(fake.requests[0]?.file.filename).toBe('voice.ogg');
    expect(fake.requests[0]?.file.data.equals(OGG)).toBe(true);
    // Kept in uploads/ like any file, and the model is told where.
    const uploads = await readdir(join(h.dirs.workspace, 'uploads'));
    expect(uploads).toEqual([expect.stringMatching(/-voice\.ogg$/)]);
    expect(await readFile(join(h.dirs.workspace, 'uploads', uploads[0] as string))).toEqual(OGG);
    expect(said).toMatch(/File received: "voice\.ogg" .*audio\/ogg\), saved as uploads\//);
  });

  it('puts a caption first and the transcript after it', async () => {
    const { h, fake } = await start();
    fake.say(SPOKEN);
    await h.message('for the report:', { attachments: [voiceNote()] });
    await h.settle();
    expect(lastUserTexts(h).at(-1)).toBe(
      `[Alice] for the report:\n\n[Voice note, transcribed by speech recognition; words may be misheard:]\n${SPOKEN}`,
    );
  });

  it('keeps no audio when told not to', async () => {
    const { h, fake } = await start({ keepAudio: false });
    fake.say(SPOKEN);
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    await expect(readdir(join(h.dirs.workspace, 'uploads'))).rejects.toThrow();
    expect(lastUserTexts(h).join('\n')).not.toContain('File received');
  });

  it('never fetches a note longer than the limit', async () => {
    const { h, fake } = await start({ maxSeconds: 60 });
    const note = voiceNote({ durationSeconds: 75 });
    await h.message('', { attachments: [note] });
    await h.settle();
    expect(note.fetched()).toBe(0);
    expect(fake.requests).toHaveLength(0);
    expect(h.texts()).toEqual([
      '⚠️ That voice note is 1 minute 15 seconds long; I transcribe up to 1 minute, so I left it out. Please send a shorter one, or type it.',
    ]);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });

  it('measures a note whose platform gave no length, and sends none longer than the limit', async () => {
    const { h, fake } = await start({ maxSeconds: 2 });
    await h.message('', { attachments: [voiceNote({ durationSeconds: undefined })] });
    await h.settle();
    expect(h.texts()).toEqual([
      '⚠️ That voice note is 3 seconds long; I transcribe up to 2 seconds, so I left it out. Please send a shorter one, or type it.',
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    [
      400,
      "⚠️ I couldn't transcribe that voice note: the transcription service refused the recording (HTTP 400): Scripted failure 400. Please send it again, or type it.",
    ],
    [
      503,
      "⚠️ I couldn't transcribe that voice note: the transcription service failed (HTTP 503): Scripted failure 503. Please send it again, or type it.",
    ],
  ])('says a failure (HTTP %i) in one line and runs nothing', async (status, line) => {
    const { h, fake } = await start();
    fake.fail(status);
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    expect(h.texts()).toEqual([line]);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });

  it('says a timeout in one line (the injected clock) and runs nothing', async () => {
    const { h, fake } = await start({ timeoutMs: 5_000 });
    fake.hang();
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    expect(h.texts()).toEqual([
      "⚠️ I couldn't transcribe that voice note: the transcription service did not answer within 5 s. Please send it again, or type it.",
    ]);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });

  it('says when it heard no words, and still answers text sent with the note', async () => {
    const { h, fake } = await start();
    fake.say('');
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    expect(h.texts()).toEqual([
      "🎙 I couldn't hear any words in that voice note. Please send it again, or type it.",
    ]);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
    fake.say('');
    await h.message('what time is it?', { attachments: [voiceNote()] });
    await h.settle();
    expect(h.texts().slice(1)).toEqual([
      "🎙 I couldn't hear any words in that voice note, so I answered your text alone. Please send it again, or type it.",
      'Alice said: what time is it?',
    ]);
  });

  it('refuses a transcript longer than a message may be, as it refuses typed text', async () => {
    const { h, fake } = await start();
    fake.say('word '.repeat(7_000));
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    expect(h.texts().at(-1)).toMatch(/^That message is 35,\d{3} characters; the limit is 32,000\./);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });

  it('says a failed download in one line', async () => {
    const { h, fake } = await start();
    const note = voiceNote();
    note.download = async () => ({ ...note, problem: 'too-large', limitBytes: 1024 * 1024 });
    await h.message('', { attachments: [note] });
    await h.settle();
    expect(h.texts()).toEqual([
      '⚠️ that voice note is larger than 1 MB, the most I take, so I left it out. Send a smaller file, or split it.',
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it('never writes the audio or the transcript to the logs', async () => {
    const { h, fake } = await start();
    fake.fail(500);
    await h.message('', { attachments: [voiceNote()] });
    fake.say(SPOKEN);
    await h.message('', { attachments: [voiceNote()] });
    await h.settle();
    const logs = h.logs.join('\n');
    expect(logs).toContain('a voice note could not be transcribed');
    expect(logs).not.toContain(SPOKEN);
    expect(logs).not.toContain(OGG.subarray(0, 64).toString('base64'));
    expect(logs).not.toContain('tk-secret');
  });

  it('stops transcribing on /stop, and says nothing more', async () => {
    const { h, fake } = await start();
    fake.hang();
    await h.message('', { attachments: [voiceNote()] });
    await fake.received(1);
    await h.command('stop');
    await h.settle();
    expect(h.texts()).toEqual(['⏹ Stopped the current reply.']);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });
});

describe('voice notes in the usage ledger', () => {
  it('counts each note and its minutes in /cost, priced when a price is set, across a restart', async () => {
    const { h: first, fake } = await start({ pricePerMinute: 0.006 });
    fake.say(SPOKEN);
    // Telegram says 90 s; without a stated length the file's own (2.6 s, read from the Ogg) counts.
    await first.message('', { attachments: [voiceNote({ durationSeconds: 90 })] });
    fake.say(SPOKEN, 30);
    await first.message('', { attachments: [voiceNote({ durationSeconds: undefined })] });
    await first.settle();
    const line = (await first.ask('cost')).split('\n')[0];
    expect(line).toMatch(
      /^This session: .* requests: \$[\d.]+; 2 voice notes transcribed \(1\.5 min\): \$0\.009\d*$/,
    );
    await first.stop();
    const again = await first.restart();
    try {
      expect((await again.ask('cost')).split('\n')[0]).toMatch(/2 voice notes transcribed \(1\.5 min\)$/);
    } finally {
      await again.close();
    }
  });
});

describe('voice notes without a transcription service', () => {
  it('answers with the one line, naming the settings to an admin only', async () => {
    h = await startBotHarness();
    const note = voiceNote();
    await h.message('', { attachments: [note] });
    await h.message('', { attachments: [note], user: USERS.admin });
    await h.settle();
    expect(h.texts()).toEqual([
      "I can't read voice messages yet; please send text.",
      "I can't read voice messages yet; please send text. (Admin: set SWITCHBOARD_TRANSCRIBE_URL and SWITCHBOARD_TRANSCRIBE_MODEL to have voice notes transcribed.)",
    ]);
    expect(note.fetched()).toBe(0);
  });
});
