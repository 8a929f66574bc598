/**
 * Files into the chat, end to end on Slack (npm start wiring): a document
 * shared in a DM is fetched with the bot token, saved in the workspace and
 * read by the model; one over SWITCHBOARD_MAX_FILE_MB is answered by name
 * while the message's text still runs.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { pdfBytes } from '../../fakes/pdfs.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../../fakes/slack/index.js';
import { startSlackApp } from './app.js';

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-files-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

const shows = (pattern: RegExp) => () => fake.botMessages('D1').some((m) => pattern.test(visibleText(m)));

describe('Slack: files into the chat', () => {
  it('a PDF shared in a DM is downloaded with the bot token, saved, and read by the model', async () => {
    app = await startSlackApp(fake, anthropic, root);
    const pdf = pdfBytes(1);
    const file = fake.addFile('plan.pdf', 'application/pdf', pdf);
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'summarise this', files: [file] });
    await fake.until(shows(/You said: .*summarise this/), 10_000, 'the reply');
    const content = anthropic.requests[0].messages.at(-1).content;
    expect(content.find((b: { type: string }) => b.type === 'document')).toMatchObject({
      source: { media_type: 'application/pdf', data: pdf.toString('base64') },
    });
    const [saved] = await readdir(join(root, 'workspace', 'uploads'));
    expect(saved).toMatch(/^\d{4}-\d{2}-\d{2}-plan\.pdf$/);
    expect(await readFile(join(root, 'workspace', 'uploads', saved as string))).toEqual(pdf);
    expect(fake.state.fileDownloads).toEqual([file.id]);
  });

  it('a file over SWITCHBOARD_MAX_FILE_MB is named in the answer; the text runs without it', async () => {
    app = await startSlackApp(fake, anthropic, root, { SWITCHBOARD_MAX_FILE_MB: '0.01' });
    const file = fake.addFile('huge.log', 'text/plain', Buffer.alloc(20_000, 65));
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'why did it crash?', files: [file] });
    await fake.until(
      shows(/"huge\.log" is larger than 0\.01 MB, the most I take, so I left it out and answered your text/),
      10_000,
      'the answer naming the file',
    );
    await fake.until(shows(/You said: .*why did it crash/), 10_000, 'the reply');
    expect(fake.state.fileDownloads).toEqual([]);
    expect(JSON.stringify(anthropic.requests[0].messages)).not.toContain('huge.log');
  });
});
