/**
 * The transcription client against the fake OpenAI-compatible endpoint, with
 * real speech made on this machine (test/fixtures/voice/make.sh): the
 * multipart request carries the audio as it came, under the extension its
 * container goes by, with the model; each failure is one readable error.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';
import { createTranscriber } from '../../src/transcribe/index.js';
import { startFakeTranscription } from '../fakes/transcription.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const fixture = (name: string) => readFile(new URL(`../fixtures/voice/${name}`, import.meta.url));

async function setup(key?: string) {
  const fake = await startFakeTranscription(key ? { key } : {});
  cleanups.push(() => fake.close());
  const clock = new VirtualClock();
  const client = createTranscriber({
    url: fake.url,
    model: 'whisper-1',
    ...(key ? { apiKey: key } : {}),
    clock,
    timeoutMs: 60_000,
  });
  return { fake, client, clock };
}

async function failure(p: Promise<unknown>): Promise<SwitchboardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SwitchboardError);
  return err as SwitchboardError;
}

describe('transcription client', () => {
  it.each([
    ['voice.ogg', 'voice.oga', 'voice.ogg', 'audio/ogg'],
    ['voice.webm', undefined, 'audio.webm', 'audio/webm'],
    ['voice.mp4', 'audio_message.mp4', 'audio_message.m4a', 'audio/mp4'],
    ['voice.mp3', 'song.MP3', 'song.mp3', 'audio/mpeg'],
  ])('sends %s as it came, named for its container', async (fixtureName, sentName, uploaded, type) => {
    const { fake, client } = await setup('sk-test');
    const bytes = await fixture(fixtureName);
    fake.say('  Please list the files in the workspace.  ', 2.4);
    const heard = await client.transcribe({ bytes, ...(sentName ? { name: sentName } : {}) });
    expect(heard).toEqual({ text: 'Please list the files in the workspace.', seconds: 2.4 });
    const [request] = fake.requests;
    expect(request?.authorization).toBe('Bearer sk-test');
    expect(request?.model).toBe('whisper-1');
    expect(request?.responseFormat).toBe('json');
    expect(request?.file.filename).toBe(uploaded);
    expect(request?.file.mimeType).toBe(type);
    expect(request?.file.data.equals(bytes)).toBe(true);
  });

  it('refuses a recording in a format the API does not take, without calling it', async () => {
    const { fake, client } = await setup();
    const err = await failure(client.transcribe({ bytes: Buffer.from('#!AMR\n0000'), name: 'note.amr' }));
    expect(err.detail.reason).toBe('format');
    expect(err.message).toMatch(/format .*flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm/);
    expect(fake.requests).toHaveLength(0);
  });

  it('gives up after its timeout on the injected clock', async () => {
    const { fake, client, clock } = await setup();
    fake.hang();
    const pending = failure(client.transcribe({ bytes: await fixture('voice.ogg') }));
    await fake.received(1);
    await clock.advance(60_000);
    const err = await pending;
    expect(err.detail.reason).toBe('timeout');
    expect(err.message).toBe('the transcription service did not answer within 60 s');
  });

  it.each([
    [400, 'rejected', /refused the recording \(HTTP 400\): Scripted failure 400\./],
    [413, 'rejected', /refused the recording \(HTTP 413\)/],
    [500, 'server', /failed \(HTTP 500\)/],
    [503, 'server', /failed \(HTTP 503\)/],
  ])('says what HTTP %i means in one line', async (status, reason, message) => {
    const { fake, client } = await setup();
    fake.fail(status);
    const err = await failure(client.transcribe({ bytes: await fixture('voice.ogg') }));
    expect(err.detail).toMatchObject({ reason, status });
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain('\n');
  });

  it('says a refused key is the key, without showing it', async () => {
    const { fake } = await setup('right-key');
    const client = createTranscriber({ url: fake.url, model: 'whisper-1', apiKey: 'wrong-key' });
    const err = await failure(client.transcribe({ bytes: await fixture('voice.ogg') }));
    expect(err.detail.reason).toBe('auth');
    expect(err.message).toMatch(/refused the bot's key \(HTTP 401\): Incorrect API key provided\./);
    expect(err.message).not.toContain('wrong-key');
  });

  it('returns empty text as empty (the caller says so)', async () => {
    const { fake, client } = await setup();
    fake.say('   ');
    expect((await client.transcribe({ bytes: await fixture('voice.ogg') })).text).toBe('');
  });

  it('says when the service cannot be reached', async () => {
    const { fake } = await setup();
    const url = fake.url;
    await fake.close();
    const client = createTranscriber({ url, model: 'm' });
    const err = await failure(client.transcribe({ bytes: await fixture('voice.ogg') }));
    expect(err.detail.reason).toBe('network');
  });

  it('stops when the caller aborts', async () => {
    const { fake, client } = await setup();
    fake.hang();
    const controller = new AbortController();
    const pending = failure(
      client.transcribe({ bytes: await fixture('voice.ogg') }, { signal: controller.signal }),
    );
    await fake.received(1);
    controller.abort();
    expect((await pending).code).toBe('ABORTED');
  });
});
