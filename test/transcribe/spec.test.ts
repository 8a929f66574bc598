/**
 * The client and the fake endpoint against what OpenAI published: an excerpt
 * of openai/openai-openapi's openapi.json (POST /audio/transcriptions; the
 * repository, path and commit are in the fixture's `source`). The fake's
 * rules are our reading of the reference; here they meet the description
 * itself and its recorded example responses.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_EXTENSIONS, createTranscriber } from '../../src/transcribe/index.js';
import { FAKE_EXTENSIONS, FAKE_FORMATS, startFakeTranscription } from '../fakes/transcription.js';
import { useCleanups } from '../helpers/cleanups.js';

interface SpecExcerpt {
  requestContentTypes: string[];
  required: string[];
  file: { description: string };
  response_format: { enum: string[]; default: string };
  durationUsage: { properties: { type: { enum: string[] } }; required: string[] };
  examples: { title: string; response: { text: string; usage?: { type: string; seconds?: number } } }[];
}

const spec = JSON.parse(
  await readFile(new URL('../fixtures/voice/openai-transcriptions-spec.json', import.meta.url), 'utf8'),
) as SpecExcerpt;
const OGG = await readFile(new URL('../fixtures/voice/voice.ogg', import.meta.url));
const cleanups = useCleanups();

/** The formats the description's `file` lists: "in one of these formats: flac, mp3, …, or webm." */
const specFormats = (/formats: ([^.]+)\./.exec(spec.file.description)?.[1] ?? '')
  .split(/,\s*(?:or\s+)?|\s+or\s+/)
  .map((f) => f.trim())
  .filter(Boolean);

describe('the published transcription API description', () => {
  it('lists the formats the client names files by and the fake takes', () => {
    expect(specFormats).toEqual(['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm']);
    expect([...ACCEPTED_EXTENSIONS].sort()).toEqual([...specFormats].sort());
    expect([...FAKE_EXTENSIONS].sort()).toEqual([...specFormats].sort());
  });

  it('has the request shape the client sends: multipart, file and model, a response format it lists', async () => {
    expect(spec.requestContentTypes).toEqual(['multipart/form-data']);
    expect(spec.required).toEqual(['file', 'model']);
    expect([...FAKE_FORMATS].sort()).toEqual([...spec.response_format.enum].sort());
    const fake = await startFakeTranscription();
    cleanups.push(() => fake.close());
    fake.say('ok');
    await createTranscriber({ url: fake.url, model: 'gpt-4o-mini-transcribe' }).transcribe({ bytes: OGG });
    expect(spec.response_format.enum).toContain(fake.requests[0]?.responseFormat);
    expect(fake.requests[0]?.model).toBe('gpt-4o-mini-transcribe');
  });

  it('has recorded responses the client reads', async () => {
    const fake = await startFakeTranscription();
    cleanups.push(() => fake.close());
    const client = createTranscriber({ url: fake.url, model: 'gpt-4o-transcribe' });
    expect(spec.examples.map((e) => e.title)).toContain('Default');
    for (const example of spec.examples) {
      fake.answer(example.response);
      const heard = await client.transcribe({ bytes: OGG });
      expect(heard.text, example.title).toBe(example.response.text.trim());
      // Token-billed answers carry no length; only a duration usage does.
      expect(heard.seconds, example.title).toBe(
        example.response.usage?.type === 'duration' ? example.response.usage.seconds : undefined,
      );
    }
  });

  it('describes the duration usage the ledger reads', async () => {
    expect(spec.durationUsage.properties.type.enum).toEqual(['duration']);
    expect(spec.durationUsage.required).toEqual(['type', 'seconds']);
    const fake = await startFakeTranscription();
    cleanups.push(() => fake.close());
    fake.answer({ text: 'hello', usage: { type: 'duration', seconds: 8.47 } });
    const heard = await createTranscriber({ url: fake.url, model: 'whisper-1' }).transcribe({ bytes: OGG });
    expect(heard).toEqual({ text: 'hello', seconds: 8.47 });
  });
});
