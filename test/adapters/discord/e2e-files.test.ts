/**
 * Files into the chat, end to end on Discord (npm start wiring): an
 * attachment in a DM is downloaded, saved in the workspace and read by the
 * model; one over SWITCHBOARD_MAX_FILE_MB is answered by name while the
 * message's text still runs.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { botTexts, startApp } from './app.js';

let fake: FakeDiscord;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-discord-files-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

/** Resolves once the bot has posted a message in `channelId` matching `pattern`. */
const said = (channelId: string, pattern: RegExp) =>
  fake.waitFor(() => botTexts(fake, channelId).find((m) => pattern.test(m.content)), `a message ${pattern}`);

describe('Discord: files into the chat', () => {
  it('a text file attached in a DM is saved and read by the model', async () => {
    app = await startApp(fake, anthropic, root);
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    const csv = Buffer.from('region,total\nnorth,12\nsouth,30\n');
    fake.userMessage({
      channelId: dm.id,
      author: alice,
      content: 'which region sold more?',
      files: [{ filename: 'sales.csv', contentType: 'text/csv; charset=utf-8', data: csv }],
    });
    await said(dm.id, /You said: .*which region sold more/);
    const content = anthropic.requests[0].messages.at(-1).content as { type: string; text?: string }[];
    expect(content.some((b) => b.type === 'text' && b.text === csv.toString())).toBe(true);
    const [saved] = await readdir(join(root, 'workspace', 'uploads'));
    expect(saved).toMatch(/^\d{4}-\d{2}-\d{2}-sales\.csv$/);
    expect(await readFile(join(root, 'workspace', 'uploads', saved as string))).toEqual(csv);
    expect(JSON.stringify(content)).toContain(`saved as uploads/${saved}`);
  });

  it('an attachment over SWITCHBOARD_MAX_FILE_MB is named in the answer; the text runs without it', async () => {
    app = await startApp(fake, anthropic, root, { env: { SWITCHBOARD_MAX_FILE_MB: '0.01' } });
    const alice = fake.user('alice');
    const dm = fake.dmChannel(alice);
    fake.userMessage({
      channelId: dm.id,
      author: alice,
      content: 'what broke?',
      files: [{ filename: 'trace.log', contentType: 'text/plain', data: Buffer.alloc(20_000, 65) }],
    });
    await said(
      dm.id,
      /"trace\.log" is larger than 0\.01 MB, the most I take, so I left it out and answered your text/,
    );
    await said(dm.id, /You said: .*what broke/);
    expect(JSON.stringify(anthropic.requests[0].messages)).not.toContain('trace.log');
  });
});
