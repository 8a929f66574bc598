/**
 * /metrics counts the calls a list of methods used to miss: uploads on
 * every platform and the answer to a button press. The ready bot as `npm
 * start` assembles it, the model (the fake Messages API) calls SendFile, the
 * real SDK uploads to the platform's fake, and Prometheus's view of
 * `switchboard_platform_calls_total` shows the `sendFile` call (and the 429
 * the platform answered first); the terminal chat's path line counts the
 * same way. The running adapters expose no call the funnel does not walk.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { CONSOLE_CHAT, createConsoleAdapter } from '../../adapters/console/index.js';
import type { RunningApp } from '../../src/app.js';
import { instrumentAdapter } from '../../src/ops/instrument-adapter.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { startApp as startDiscordApp } from '../adapters/discord/app.js';
import { mention } from '../adapters/discord/helpers.js';
import { startSlackApp } from '../adapters/slack/app.js';
import { ANN, createAppWorld } from '../adapters/telegram/app-harness.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { pngBase64 } from '../fakes/images.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { putWorkspaceFile } from '../helpers/files-out.js';
import { unwalkedCalls } from './contract-members.js';
import { get, sample } from './scrape.js';

const cleanups = useCleanups();

/**
 * `/metrics` on the app's port counts its uploads on `platform` as `counts`
 * (`ok`, `rate_limited`, `error`; absent ones not at all), and the app's
 * adapters expose no call the funnel does not walk.
 */
async function expectUploadsCounted(app: RunningApp, platform: string, counts: Record<string, number>) {
  const { body } = await get(app.opsPort ?? 0, '/metrics');
  const seen: Record<string, number> = {};
  for (const outcome of ['ok', 'rate_limited', 'error']) {
    const n = sample(body, 'switchboard_platform_calls_total', { platform, method: 'sendFile', outcome });
    if (n !== undefined) seen[outcome] = n;
  }
  expect(seen).toEqual(counts);
  expect(app.adapters.flatMap(unwalkedCalls)).toEqual([]);
}

/** The fake Messages API and a folder for the app's data and workspace, both gone after the test. */
async function anthropicAndRoot(): Promise<{ anthropic: FakeAnthropic; root: string }> {
  const anthropic = await startFakeAnthropic();
  cleanups.push(() => anthropic.close());
  return { anthropic, root: await cleanups.tempRoot('upload-metrics') };
}

/** A chart in the workspace under `root`, and the model's turn that sends it, then a closing line. */
async function scriptChart(anthropic: FakeAnthropic, root: string): Promise<void> {
  await putWorkspaceFile(join(root, 'workspace'), 'chart.png', Buffer.from(pngBase64(64, 64), 'base64'));
  anthropic.enqueue(
    { toolUse: [{ name: 'SendFile', input: { file_path: 'chart.png' } }] },
    { text: ['There it is.'] },
  );
}

describe('/metrics counts every platform call', () => {
  it('on Telegram, the answer to a button press (answerCallbackQuery), as `respond`', async () => {
    const world = await createAppWorld();
    cleanups.push(() => world.close());
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    world.telegram.pushUpdate(callbackUpdate({ chatId: 11, user: ANN }, 1, 'no-such-button'));
    await world.telegram.waitFor(
      () => [...world.telegram.state.callbacks.values()].some((c) => c.answered !== undefined),
      10_000,
    );
    // The count lands once the answer's response is back at the adapter.
    await vi.waitFor(async () => {
      const { body } = await get(app.opsPort ?? 0, '/metrics');
      expect(
        sample(body, 'switchboard_platform_calls_total', { platform: 'telegram', method: 'respond' }),
      ).toBe(1);
    }, 10_000);
  });

  it('on Telegram, the upload and the 429 the outbox waited out before sending it again', async () => {
    const world = await createAppWorld();
    cleanups.push(() => world.close());
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    await scriptChart(world.anthropic, world.root);
    world.telegram.fault({ method: 'sendPhoto', kind: 'rate-limit', retryAfter: 1, times: 1 });
    world.telegram.pushUpdate(messageUpdate({ chatId: 11, user: ANN }, 'chart'));
    await world.telegram.waitFor(
      () => world.telegram.botMessages(11).some((m) => m.text === 'There it is.'),
      15_000,
    );
    await app.bot.idle();
    expect(world.telegram.state.calls.filter((c) => c.method === 'sendPhoto').map((c) => c.outcome)).toEqual([
      429,
      'ok',
    ]);
    await expectUploadsCounted(app, 'telegram', { ok: 1, rate_limited: 1 });
  });

  it('on Slack, one upload through its three-step flow', async () => {
    const fake = await startFakeSlack();
    cleanups.push(() => fake.close());
    const { anthropic, root } = await anthropicAndRoot();
    fake.state.users.set('U1', 'Alice');
    const app = await startSlackApp(fake, anthropic, root, { SWITCHBOARD_HTTP_PORT: '0' });
    cleanups.push(async () => {
      await app.stop();
      await fake.socket.waitForDisconnect();
    });
    await scriptChart(anthropic, root);
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> chart please' });
    await fake.until(
      () => fake.botMessages('C1', ts).some((m) => m.files !== undefined),
      15_000,
      'the shared file',
    );
    await app.bot.idle();
    expect(fake.callsOf('files.completeUploadExternal')).toHaveLength(1);
    await expectUploadsCounted(app, 'slack', { ok: 1 });
  });

  it('on Discord, one multipart upload into the thread', async () => {
    // Discord's pace divided by ten on both sides (the fake and the adapter): the count is asserted, not the pace.
    const fake = await startFakeDiscord();
    cleanups.push(() => fake.close());
    const { anthropic, root } = await anthropicAndRoot();
    const app = await startDiscordApp(fake, anthropic, root, {
      scaled: true,
      env: { SWITCHBOARD_HTTP_PORT: '0' },
    });
    cleanups.push(() => app.stop());
    await scriptChart(anthropic, root);
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} chart please`,
    });
    const thread = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
    await fake.waitFor(
      () => fake.botMessages(thread.id).find((m) => (m.attachments?.length ?? 0) > 0),
      'the uploaded file',
    );
    await app.bot.idle();
    await expectUploadsCounted(app, 'discord', { ok: 1 });
  });

  it('in the terminal chat, where a file is shown by its path', async () => {
    const metrics = createMetrics();
    const output = new PassThrough();
    const adapter = instrumentAdapter(createConsoleAdapter({ input: new PassThrough(), output }), metrics);
    const printed: string[] = [];
    output.on('data', (chunk: Buffer) => printed.push(chunk.toString()));
    const bytes = new Uint8Array([1, 2, 3]);
    const file = {
      name: 'q3.csv',
      path: '/work/q3.csv',
      bytes,
      mediaType: 'text/csv',
      kind: 'document',
    } as const;
    await adapter.sendFile?.(CONSOLE_CHAT, file);
    expect(printed.join('')).toContain('/work/q3.csv');
    const text = await metrics.registry.metrics();
    expect(
      sample(text, 'switchboard_platform_calls_total', { platform: 'console', method: 'sendFile' }),
    ).toBe(1);
    expect(unwalkedCalls(adapter)).toEqual([]);
  });
});
