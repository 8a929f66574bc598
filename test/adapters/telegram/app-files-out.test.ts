/**
 * Files out, end to end on Telegram: the model (the fake Messages API)
 * calls SendFile, the real grammY client uploads through sendPhoto or
 * sendDocument to the fake Bot API, and the test reads what a person sees in
 * the topic: the text before the file, the photo with its caption, the text
 * after. Group paces and the fake's limits are scaled down 10x together.
 */
import { truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pngBase64 } from '../../fakes/images.js';
import { type FakeTelegramOptions, messageUpdate } from '../../fakes/telegram/index.js';
import { putWorkspaceFile, lastToolResult as toolResult } from '../../helpers/files-out.js';
import { ANN, type AppWorld, createAppWorld } from './app-harness.js';

const SCALED_PACES = { groupEditIntervalMs: 300, groupBudget: { count: 20, windowMs: 6000 } };
const SCALED_LIMITS = { group: { count: 20, windowMs: 5000 }, perMessage: { count: 1, windowMs: 250 } };
const GROUP = -100700;
const TOPIC = 7;

let world: AppWorld;
afterEach(async () => {
  await world?.close();
});

async function startWorld(options: FakeTelegramOptions = {}): Promise<AppWorld> {
  const w = await createAppWorld({ limits: SCALED_LIMITS, ...options });
  await w.startWithPaces(SCALED_PACES);
  return w;
}

const putFile = (path: string, data: string | Buffer) =>
  putWorkspaceFile(join(world.root, 'workspace'), path, data);

const inTopic = () => world.telegram.botMessages(GROUP, TOPIC);
const ask = (text: string) =>
  world.telegram.pushUpdate(
    messageUpdate({ chatId: GROUP, user: ANN, threadId: TOPIC }, `@switchboard_bot ${text}`),
  );

describe('Telegram: files out', () => {
  it('shows a chart the model sends as a photo in the topic, with its caption, between the texts around it', async () => {
    world = await startWorld();
    const png = Buffer.from(pngBase64(640, 480), 'base64');
    await putFile('charts/q3.png', png);
    world.anthropic.enqueue(
      {
        text: ['Here is the Q3 chart:'],
        toolUse: [{ name: 'SendFile', input: { file_path: 'charts/q3.png', caption: 'Q3 revenue' } }],
      },
      { text: ['Revenue grew 12%.'] },
    );
    ask('chart please');
    await world.telegram.waitFor(() => inTopic().some((m) => m.text === 'Revenue grew 12%.'), 15_000);
    const seen = inTopic().map((m) => [m.file?.kind ?? 'text', m.text]);
    expect(seen).toEqual([
      ['text', 'Here is the Q3 chart:'],
      ['photo', 'Q3 revenue'],
      ['text', 'Revenue grew 12%.'],
    ]);
    const photo = inTopic()[1]!;
    expect(photo.file?.data.equals(png)).toBe(true);
    expect(photo.file?.name).toBe('q3.png');
    expect(toolResult(world.anthropic.requests[1])).toMatchObject({
      content: expect.stringMatching(/^Sent charts\/q3\.png .*sent as an image/),
    });
    expect(toolResult(world.anthropic.requests[1]).is_error).toBeUndefined();
  });

  it('in a private chat, turns the streamed draft into a message before the photo, and waits out a 429 on the upload', async () => {
    world = await createAppWorld();
    await world.start();
    await putFile('q3.png', Buffer.from(pngBase64(64, 64), 'base64'));
    // The upload's 429 must reach the outbox's scheduler (no retry inside grammY), which sends it again.
    world.telegram.fault({ method: 'sendPhoto', kind: 'rate-limit', retryAfter: 1, times: 1 });
    world.anthropic.enqueue(
      {
        text: ['Drawing', ' the chart now.'],
        toolUse: [{ name: 'SendFile', input: { file_path: 'q3.png' } }],
      },
      { text: ['There it is.'] },
    );
    world.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, 'chart'));
    await world.telegram.waitFor(
      () => world.telegram.botMessages(11).some((m) => m.text === 'There it is.'),
      15_000,
    );
    expect(world.telegram.botMessages(11).map((m) => [m.file?.kind ?? 'text', m.text])).toEqual([
      ['text', 'Drawing the chart now.'],
      ['photo', ''],
      ['text', 'There it is.'],
    ]);
    expect(world.telegram.draftsIn(11).length).toBeGreaterThan(0);
    const photos = world.telegram.state.calls.filter((c) => c.method === 'sendPhoto');
    expect(photos.map((c) => c.outcome)).toEqual([429, 'ok']);
    expect(photos[1]!.at - photos[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('sends a document again after a 502, and it arrives once', async () => {
    world = await startWorld();
    await putFile('notes.txt', 'line one\nline two\n');
    world.telegram.fault({ method: 'sendDocument', kind: 'server-error', status: 502, times: 1 });
    world.anthropic.enqueue(
      { toolUse: [{ name: 'SendFile', input: { file_path: 'notes.txt', caption: 'the notes' } }] },
      { text: ['Sent.'] },
    );
    ask('notes');
    await world.telegram.waitFor(() => inTopic().some((m) => m.text === 'Sent.'), 15_000);
    expect(inTopic().map((m) => [m.file?.kind ?? 'text', m.text])).toEqual([
      ['document', 'the notes'],
      ['text', 'Sent.'],
    ]);
    const calls = world.telegram.state.calls.filter((c) => c.method === 'sendDocument');
    expect(calls.map((c) => c.outcome)).toEqual([502, 'ok']);
    expect(toolResult(world.anthropic.requests[1]).content).toMatch(/^Sent notes\.txt .*sent as a document/);
  });

  it('reports files over the limit to the model: over the declared 50 MB, and refused by Telegram with 413', async () => {
    // The fake takes 64 KB files, so a 100 KB report meets Telegram's own refusal.
    world = await startWorld({ uploads: { maxFileBytes: 64 * 1024 } });
    await putFile('report.csv', Buffer.alloc(100 * 1024, 0x61));
    // A sparse 60 MB file: over the declared limit, so it is never read into memory nor uploaded.
    await truncate(await putFile('dump.bin', ''), 60 * 1024 * 1024);
    world.anthropic.enqueue(
      { toolUse: [{ name: 'SendFile', input: { file_path: 'dump.bin' } }] },
      { toolUse: [{ name: 'SendFile', input: { file_path: 'report.csv' } }] },
      { text: ['Both were too large.'] },
    );
    ask('send the files');
    await world.telegram.waitFor(() => inTopic().some((m) => m.text === 'Both were too large.'), 20_000);
    const declared = toolResult(world.anthropic.requests[1]);
    expect(declared.is_error).toBe(true);
    expect(declared.content).toContain("over this chat's upload limit of 50 MB (52428800 bytes)");
    const refused = toolResult(world.anthropic.requests[2]);
    expect(refused.is_error).toBe(true);
    expect(refused.content).toMatch(/refused report\.csv as too large.*413 Request Entity Too Large/);
    // Telegram was asked once (a 413 is not retried), and nothing but the closing text reached the topic.
    const uploads = world.telegram.state.calls.filter((c) => c.method === 'sendDocument');
    expect(uploads.map((c) => c.outcome)).toEqual([413]);
    expect(inTopic().map((m) => m.text)).toEqual(['Both were too large.']);
  });

  it('sends a caption over 1024 characters as a message just before the file, and a wide image as a document', async () => {
    world = await startWorld();
    // 4000 x 100: a ratio of 40, which sendPhoto refuses; the file still arrives, as a document.
    await putFile('strip.png', Buffer.from(pngBase64(4000, 100), 'base64'));
    const caption = `Long note. ${'x'.repeat(1100)}`;
    world.anthropic.enqueue(
      { toolUse: [{ name: 'SendFile', input: { file_path: 'strip.png', caption } }] },
      { text: ['Sent.'] },
    );
    ask('strip');
    await world.telegram.waitFor(() => inTopic().some((m) => m.text === 'Sent.'), 15_000);
    expect(inTopic().map((m) => [m.file?.kind ?? 'text', m.text])).toEqual([
      ['text', caption],
      ['document', ''],
      ['text', 'Sent.'],
    ]);
    expect(world.telegram.state.calls.find((c) => c.method === 'sendPhoto')?.description).toMatch(
      /PHOTO_INVALID_DIMENSIONS/,
    );
  });

  it('sends an image over the 10 MB photo limit as a document, without trying sendPhoto', async () => {
    world = await startWorld();
    const big = Buffer.from(pngBase64(800, 600, 11 * 1024 * 1024 * (4 / 3)), 'base64');
    expect(big.length).toBeGreaterThan(10 * 1024 * 1024);
    await putFile('big.png', big);
    world.anthropic.enqueue(
      { toolUse: [{ name: 'SendFile', input: { file_path: 'big.png' } }] },
      { text: ['Sent as a file.'] },
    );
    ask('big one');
    // 11 MB through the sandbox, grammY's multipart and the fake: slow on a loaded machine, so a long wait.
    await world.telegram.waitFor(() => inTopic().some((m) => m.text === 'Sent as a file.'), 50_000);
    const sent = inTopic().find((m) => m.file);
    expect(sent?.file?.kind).toBe('document');
    expect(sent?.file?.data.length).toBe(big.length);
    expect(world.telegram.state.calls.filter((c) => c.method === 'sendPhoto')).toEqual([]);
    expect(toolResult(world.anthropic.requests[1]).content).toMatch(/sent as a document/);
  }, 60_000);
});
