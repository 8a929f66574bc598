/**
 * /metrics counts uploads on every platform: the ready bot as `npm start`
 * assembles it, the model (the fake Messages API) calls SendFile, the real
 * SDK uploads to the platform's fake, and Prometheus's view of
 * `switchboard_platform_calls_total` shows the `sendFile` call (and the 429
 * the platform answered first); the terminal chat's path line counts the
 * same way. The running adapters expose no call the funnel does not walk.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CONSOLE_CHAT, createConsoleAdapter } from '../../adapters/console/index.js';
import type { AdapterSelfMember, ChatAdapter } from '../../src/bot/adapter-contract.js';
import { instrumentAdapter } from '../../src/ops/instrument-adapter.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { outboundMethods } from '../../src/ops/outbound-funnel.js';
import { startApp as startDiscordApp } from '../adapters/discord/app.js';
import { mention } from '../adapters/discord/helpers.js';
import { startSlackApp } from '../adapters/slack/app.js';
import { ANN, createAppWorld } from '../adapters/telegram/app-harness.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { pngBase64 } from '../fakes/images.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { putWorkspaceFile } from '../helpers/files-out.js';
import { get, sample } from './scrape.js';

const cleanups = useCleanups();

const SELF: readonly AdapterSelfMember[] = [
  'platform',
  'globalBudget',
  'capabilities',
  'start',
  'stop',
  'describeChat',
  'health',
];

/** Every function-valued member of `adapter` (own or inherited) that is neither outbound nor its own description. */
function unwalkedCalls(adapter: ChatAdapter): string[] {
  const names = new Set<string>();
  for (let o: object | null = adapter; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) names.add(name);
  }
  const known = new Set<string>([...outboundMethods, ...SELF, 'constructor']);
  return [...names].filter(
    (name) => !known.has(name) && typeof (adapter as unknown as Record<string, unknown>)[name] === 'function',
  );
}

/** `switchboard_platform_calls_total` of `sendFile` on `platform`, as /metrics on `port` shows it. */
async function uploadsCounted(port: number | undefined, platform: string) {
  const { body } = await get(port ?? 0, '/metrics');
  const count = (outcome: string) =>
    sample(body, 'switchboard_platform_calls_total', { platform, method: 'sendFile', outcome });
  return { ok: count('ok'), rateLimited: count('rate_limited'), error: count('error') };
}

const CHART = {
  text: ['Here is the chart:'],
  toolUse: [{ name: 'SendFile', input: { file_path: 'chart.png' } }],
};

describe('/metrics counts uploads', () => {
  it('on Telegram, the upload and the 429 the outbox waited out before sending it again', async () => {
    const world = await createAppWorld();
    cleanups.push(() => world.close());
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    await putWorkspaceFile(
      join(world.root, 'workspace'),
      'chart.png',
      Buffer.from(pngBase64(64, 64), 'base64'),
    );
    world.telegram.fault({ method: 'sendPhoto', kind: 'rate-limit', retryAfter: 1, times: 1 });
    world.anthropic.enqueue(CHART, { text: ['There it is.'] });
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
    expect(await uploadsCounted(app.opsPort, 'telegram')).toEqual({
      ok: 1,
      rateLimited: 1,
      error: undefined,
    });
    expect(app.adapters.flatMap(unwalkedCalls)).toEqual([]);
  });

  it('on Slack, one upload through its three-step flow', async () => {
    const fake = await startFakeSlack();
    const anthropic = await startFakeAnthropic();
    cleanups.push(
      () => fake.close(),
      () => anthropic.close(),
    );
    const root = await cleanups.tempRoot('upload-metrics');
    fake.state.users.set('U1', 'Alice');
    const app = await startSlackApp(fake, anthropic, root, { SWITCHBOARD_HTTP_PORT: '0' });
    cleanups.push(async () => {
      await app.stop();
      await fake.socket.waitForDisconnect();
    });
    await putWorkspaceFile(join(root, 'workspace'), 'chart.png', Buffer.from(pngBase64(64, 64), 'base64'));
    anthropic.enqueue(CHART, { text: ['There it is.'] });
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> chart please' });
    await fake.until(
      () => fake.botMessages('C1', ts).some((m) => m.files !== undefined),
      15_000,
      'the shared file',
    );
    await app.bot.idle();
    expect(fake.callsOf('files.completeUploadExternal')).toHaveLength(1);
    expect(await uploadsCounted(app.opsPort, 'slack')).toEqual({
      ok: 1,
      rateLimited: undefined,
      error: undefined,
    });
    expect(app.adapters.flatMap(unwalkedCalls)).toEqual([]);
  });

  it('on Discord, one multipart upload into the thread', async () => {
    const fake = await startFakeDiscord();
    const anthropic = await startFakeAnthropic();
    cleanups.push(
      () => fake.close(),
      () => anthropic.close(),
    );
    const root = await cleanups.tempRoot('upload-metrics');
    const app = await startDiscordApp(fake, anthropic, root, { env: { SWITCHBOARD_HTTP_PORT: '0' } });
    cleanups.push(() => app.stop());
    await putWorkspaceFile(join(root, 'workspace'), 'chart.png', Buffer.from(pngBase64(64, 64), 'base64'));
    anthropic.enqueue(CHART, { text: ['There it is.'] });
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
    expect(await uploadsCounted(app.opsPort, 'discord')).toEqual({
      ok: 1,
      rateLimited: undefined,
      error: undefined,
    });
    expect(app.adapters.flatMap(unwalkedCalls)).toEqual([]);
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
