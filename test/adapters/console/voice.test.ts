/**
 * A recording in the terminal chat: the console adapter under the real bot
 * core and session, the fake Messages API and the fake transcription
 * endpoint. The operator drops the path of an audio file (real speech made
 * on this machine, test/fixtures/voice/make.sh) and it is heard as a voice
 * note; a path that is not an audio file stays text.
 */
import { copyFile, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { audioAttachment } from '../../../adapters/console/audio-path.js';
import { createConsoleAdapter } from '../../../adapters/console/index.js';
import { type Bot, createBot } from '../../../src/bot/index.js';
import { silentLogger } from '../../../src/logger.js';
import { AnthropicProvider } from '../../../src/provider/index.js';
import { createSessionFactory } from '../../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../../src/store/index.js';
import { createTranscriber } from '../../../src/transcribe/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeTranscription, startFakeTranscription } from '../../fakes/transcription.js';
import { watchScreen } from '../../helpers/console-screen.js';

const FIXTURE = new URL('../../fixtures/voice/voice.ogg', import.meta.url);
const SPOKEN = 'Please list the files in the workspace.';

let anthropic: FakeAnthropic | undefined;
let stt: FakeTranscription | undefined;
let bot: Bot | undefined;
let root: string | undefined;

afterEach(async () => {
  await bot?.stop();
  await anthropic?.close();
  await stt?.close();
  if (root) await rm(root, { recursive: true, force: true });
  bot = anthropic = stt = root = undefined;
});

describe('the terminal chat: audio file paths', () => {
  it('a dropped path of a recording is transcribed, shown as heard and answered', async () => {
    anthropic = await startFakeAnthropic();
    stt = await startFakeTranscription();
    root = await realpath(await mkdtemp(join(tmpdir(), 'sb-console-voice-')));
    const path = join(root, 'my note.ogg');
    await copyFile(FIXTURE, path);
    const input = new PassThrough();
    const { output, until, text } = watchScreen();
    bot = createBot({
      adapters: [createConsoleAdapter({ input, output, userName: 'op' })],
      sessions: createSessionFactory({
        provider: new AnthropicProvider({ apiKey: 'sk-ant-console-voice-0123', baseURL: anthropic.url }),
        sessionStore: createUserSessionStore(join(root, 'data', 'sessions')),
        workspace: join(root, 'ws'),
      }),
      stores: { state: createBotStateStore(join(root, 'data')) },
      access: { trustedPlatforms: ['console'] },
      voice: { transcriber: createTranscriber({ url: stt.url, model: 'whisper-1' }) },
      logger: silentLogger,
    });
    await bot.start();
    stt.say(SPOKEN);
    // As a terminal pastes a dropped file: the space escaped.
    input.write(`${path.replace(/ /g, '\\ ')}\n`);
    await until(/You said: /);
    expect(text()).toContain(`🎙 "${SPOKEN}"`);
    expect(stt.requests[0]?.file.filename).toBe('my_note.ogg');
    expect(JSON.stringify(anthropic.requests[0].messages)).toContain(SPOKEN);
  });

  it('takes only whole-line paths of existing audio files', async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'sb-console-voice-')));
    await copyFile(FIXTURE, join(root, 'a.ogg'));
    await copyFile(FIXTURE, join(root, 'a.txt'));
    expect(await audioAttachment('a.ogg', root)).toMatchObject({ kind: 'audio', name: 'a.ogg' });
    expect(await audioAttachment(`'${join(root, 'a.ogg')}'`, '/')).toMatchObject({ name: 'a.ogg' });
    expect(await audioAttachment('a.txt', root)).toBeUndefined();
    expect(await audioAttachment('missing.ogg', root)).toBeUndefined();
    expect(await audioAttachment('play a.ogg for me', root)).toBeUndefined();
    const small = await audioAttachment('a.ogg', root, 100);
    expect(await small?.download?.()).toMatchObject({ problem: 'too-large', limitBytes: 100 });
  });
});
