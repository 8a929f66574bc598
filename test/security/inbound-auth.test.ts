/**
 * Forged deliveries to the ready bot (started as `npm start` starts it):
 * Slack in HTTP mode refuses unsigned, badly signed, stale (> 5 min) and
 * replayed requests, for events, slash commands and button presses alike;
 * Telegram in webhook mode refuses a wrong or missing secret token. None of
 * them reaches the model or makes the bot post anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../adapters/slack/index.js';
import { loadConfig } from '../../config/index.js';
import { startSwitchboard } from '../../src/app.js';
import { silentLogger } from '../../src/logger.js';
import { ANN, createAppWorld } from '../adapters/telegram/app-harness.js';
import { freePort } from '../adapters/telegram/helpers.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { SlackRequestSender, startFakeSlack } from '../fakes/slack/index.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const SIGNING_SECRET = 'reliability-signing-secret-9a8b7c';

describe('forged inbound requests', () => {
  it('Slack HTTP mode: unsigned, badly signed, stale and replayed requests are refused and run nothing', async () => {
    const slack = await startFakeSlack();
    const anthropic = await startFakeAnthropic();
    const root = await mkdtemp(join(tmpdir(), 'switchboard-auth-'));
    cleanups.push(
      () => slack.close(),
      () => anthropic.close(),
      () => rm(root, { recursive: true, force: true }),
    );
    const config = loadConfig({
      env: {
        ANTHROPIC_API_KEY: 'sk-ant-auth-test-0123456789',
        ANTHROPIC_BASE_URL: anthropic.url,
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_PORT: '0',
        SLACK_API_URL: slack.apiUrl,
        SWITCHBOARD_DATA_DIR: join(root, 'data'),
        SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
        SWITCHBOARD_ALLOWED_USERS: 'slack:U1',
        SWITCHBOARD_ADMINS: 'slack:U1',
      },
      argv: [],
      cwd: root,
    });
    const app = await startSwitchboard(config, { logger: silentLogger });
    cleanups.push(() => app.stop());
    const url = (app.adapters[0] as SlackAdapter).url as string;
    const sender = new SlackRequestSender(url.replace('0.0.0.0', '127.0.0.1'), SIGNING_SECRET);
    const event = (text: string, ts: string) =>
      slack.eventBody({ type: 'message', channel: 'D1', channel_type: 'im', user: 'U1', text, ts });
    const command = {
      command: '/switchboard',
      text: 'mode bypassPermissions',
      user_id: 'U1',
      channel_id: 'D1',
    };
    const press = { type: 'block_actions', user: { id: 'U1' }, actions: [{ value: 'a:0123456789' }] };
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;

    const statuses = [
      (await sender.event(event('unsigned', '1.1'), { signature: 'none' })).status,
      (await sender.event(event('bad signature', '1.2'), { signature: 'bad' })).status,
      (await sender.event(event('stale', '1.3'), { timestampSec: stale })).status,
      (await sender.command(command, { signature: 'none' })).status,
      (await sender.command(command, { signature: 'bad' })).status,
      (await sender.command(command, { timestampSec: stale })).status,
      (await sender.interactive(press, { signature: 'bad' })).status,
      (await sender.interactive(press, { timestampSec: stale })).status,
    ];
    expect(statuses).toEqual(statuses.map(() => 401));
    // A genuine request is answered; the same bytes sent again are refused.
    const genuine = await sender.event(event('genuine hello', '2.1'));
    expect(genuine.status).toBe(200);
    await slack.until(() => slack.botMessages('D1').length > 0, 10_000, 'answer to the genuine event');
    const replay = await sender.replay(genuine.request);
    expect(replay.status).toBe(401);
    await app.bot.idle();
    const asked = anthropic.requests.map((b) => JSON.stringify(b.messages));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('genuine hello');
    expect(slack.botMessages('D1')).toHaveLength(1);
  });

  it('Telegram webhook mode: a wrong or missing secret token is refused and runs nothing', async () => {
    const world = await createAppWorld();
    cleanups.push(() => world.close());
    const port = await freePort();
    await world.start({
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
      TELEGRAM_WEBHOOK_SECRET: 'the_real_secret',
      TELEGRAM_WEBHOOK_PORT: String(port),
    });
    const dm = { chatId: 11, user: ANN };
    expect(await world.telegram.deliverWebhook(messageUpdate(dm, 'forged one'), 'not_the_secret')).toBe(401);
    expect(await world.telegram.deliverWebhook(messageUpdate(dm, 'forged two'), undefined)).toBe(401);
    expect(await world.telegram.deliverWebhook(messageUpdate(dm, 'forged three'), 'the_real_secre')).toBe(
      401,
    );
    expect(await world.telegram.deliverWebhook(messageUpdate(dm, 'genuine'), 'the_real_secret')).toBe(200);
    await world.telegram.waitFor(() => world.telegram.botMessages(11).length > 0, 10_000);
    expect(world.anthropic.requests).toHaveLength(1);
    expect(JSON.stringify(world.anthropic.requests[0].messages)).not.toContain('forged');
  });
});
