/**
 * Files out, end to end on Discord: the model (the fake Messages API) calls
 * SendFile, real discord.js uploads the file as a multipart message to the
 * fake Discord, and the test reads the thread as a person sees it. Discord's
 * pace is scaled down tenfold on both sides (startScaledApp).
 */
// Slack's Socket Mode first, as in a bot with both platforms: it loads another major of undici,
// whose agent would become discord.js's REST dispatcher if the adapter did not bring its own.
import '@slack/socket-mode';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { pngBase64 } from '../../fakes/images.js';
import { lastToolResult, putWorkspaceFile } from '../../helpers/files-out.js';
import { startScaledApp } from './app.js';
import { mention } from './helpers.js';

let fake: FakeDiscord;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  // 1 MB, so a 2 MB file meets Discord's own 413 without megabytes of test data.
  fake = await startFakeDiscord({ maxUploadBytes: 1024 * 1024 });
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-discord-files-'));
  app = await startScaledApp(fake, anthropic, root);
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

const putFile = (path: string, data: string | Buffer) =>
  putWorkspaceFile(join(root, 'workspace'), path, data);

/** Alice mentions the bot in #general; resolves with the new thread's id. */
async function ask(text: string): Promise<string> {
  const opening = fake.userMessage({
    channelId: fake.generalId,
    author: fake.user('alice'),
    content: `${mention(fake)} ${text}`,
  });
  return (await fake.waitFor(() => fake.channels.get(opening.id), 'thread')).id;
}

/** What the thread shows: each bot message's attachment type (or `text`) and its text. */
const shown = (threadId: string) =>
  fake
    .botMessages(threadId)
    .filter((m) => m.interactionId === undefined)
    .map((m) => [m.attachments?.[0]?.content_type ?? 'text', m.content]);
const toolResult = (index: number) => lastToolResult(anthropic.requests[index]);

describe('Discord: files out', () => {
  it('posts a chart in the thread as an image attachment, between the texts around it, pinging nobody', async () => {
    const png = Buffer.from(pngBase64(320, 240), 'base64');
    await putFile('charts/q3.png', png);
    anthropic.enqueue(
      {
        text: ['Here is the Q3 chart:'],
        toolUse: [{ name: 'SendFile', input: { file_path: 'charts/q3.png', caption: 'Q3 for @everyone' } }],
      },
      { text: ['Revenue grew 12%.'] },
    );
    const threadId = await ask('chart please');
    await fake.waitFor(
      () => shown(threadId).some(([, text]) => text === 'Revenue grew 12%.') || undefined,
      'the text after the file',
    );
    expect(shown(threadId)).toEqual([
      ['text', 'Here is the Q3 chart:'],
      ['image/png', 'Q3 for @everyone'],
      ['text', 'Revenue grew 12%.'],
    ]);
    const message = fake.botMessages(threadId).find((m) => m.attachments?.length)!;
    expect(message.attachments?.[0]?.filename).toBe('q3.png');
    expect(message.mentions).toEqual([]);
    const upload = fake.calls.find((c) => (c.body as { __files?: unknown[] } | undefined)?.__files);
    expect(upload?.body).toMatchObject({ allowed_mentions: { parse: [] } });
    const served = await fetch(message.attachments![0]!.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    expect(toolResult(1).content).toMatch(/^Sent charts\/q3\.png .*sent as an image/);
  });

  it('reports a file Discord answers 413 (40005) to the model, once, and posts nothing', async () => {
    await putFile('data.bin', Buffer.alloc(2 * 1024 * 1024, 7));
    anthropic.enqueue(
      { toolUse: [{ name: 'SendFile', input: { file_path: 'data.bin' } }] },
      { text: ['It was too large.'] },
    );
    const threadId = await ask('send the data');
    await fake.waitFor(
      () => shown(threadId).some(([, text]) => text === 'It was too large.') || undefined,
      'the closing text',
    );
    const result = toolResult(1);
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/refused data\.bin as too large.*413, code 40005/);
    expect(fake.calls.filter((c) => c.status === 413)).toHaveLength(1);
    expect(shown(threadId)).toEqual([['text', 'It was too large.']]);
  });
});
