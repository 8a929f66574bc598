/**
 * /healthz, /readyz and /metrics over HTTP, on the ready bot as `npm start`
 * assembles it: on SWITCHBOARD_HTTP_PORT, and on the Telegram webhook port
 * without Telegram's secret (a load balancer has none), while the webhook
 * itself still refuses a forged update.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ANN, type AppWorld, createAppWorld } from '../adapters/telegram/app-harness.js';
import { freePort } from '../adapters/telegram/helpers.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { get, sample } from './scrape.js';

let world: AppWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const dm = { chatId: 11, user: ANN };

describe('operations endpoints', () => {
  it('answer on a port of their own: alive, ready, and Prometheus metrics of the platform calls', async () => {
    world = await createAppWorld();
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    const port = app.opsPort;
    expect(port).toBeGreaterThan(0);
    if (!port) return;

    expect(await get(port, '/healthz')).toMatchObject({ status: 200, body: 'ok\n' });
    expect(await get(port, '/readyz')).toMatchObject({ status: 200, body: 'ready\n' });

    world.telegram.pushUpdate(messageUpdate(dm, 'count me'));
    await world.telegram.waitFor(
      () => world?.telegram.botMessages(11).some((m) => /You said: .*count me/.test(m.text)) ?? false,
      10_000,
    );
    await app.bot.idle();
    const metrics = await get(port, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toContain('text/plain');
    expect(
      sample(metrics.body, 'switchboard_platform_calls_total', { platform: 'telegram', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    expect(metrics.body).toContain('switchboard_nodejs_eventloop_lag_seconds');
    expect(sample(metrics.body, 'switchboard_turns_started_total', { platform: 'telegram' })).toBe(1);
    expect(
      sample(metrics.body, 'switchboard_turns_finished_total', { platform: 'telegram', outcome: 'complete' }),
    ).toBe(1);
    expect(sample(metrics.body, 'switchboard_model_tokens_total', { kind: 'input' })).toBeGreaterThan(0);
    expect(sample(metrics.body, 'switchboard_model_tokens_total', { kind: 'output' })).toBeGreaterThan(0);
    expect(sample(metrics.body, 'switchboard_model_cost_usd_total', {})).toBeGreaterThan(0);
    expect(metrics.body).toMatch(/^switchboard_queue_depth 0$/m);
    expect(metrics.body).toMatch(/^switchboard_active_turns 0$/m);
    expect(metrics.body).toMatch(/^switchboard_loaded_sessions 1$/m);
    for (const name of [
      'switchboard_turns_started_total',
      'switchboard_model_tokens_total',
      'switchboard_queue_depth',
      'switchboard_loaded_sessions',
      'switchboard_approvals_pending',
      'switchboard_lease_takeovers_total',
    ]) {
      expect(metrics.body).toContain(`# TYPE ${name}`);
    }
    expect(metrics.body).not.toContain(world.telegram.token);
    expect((await get(port, '/nothing-here')).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${port}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('report not ready with the reason when the data directory cannot be written, and ready again after', async () => {
    world = await createAppWorld();
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    const port = app.opsPort ?? 0;
    const data = join(world.root, 'data');
    // A file where the data directory was: every write fails, for root too.
    await rename(data, `${data}.away`);
    await writeFile(data, 'not a directory');
    const down = await get(port, '/readyz');
    await rm(data);
    await rename(`${data}.away`, data);
    expect(down.status).toBe(503);
    expect(down.body).toMatch(/^not ready\nstore: the data directory .* cannot be written \(ENOTDIR\)/);
    expect((await get(port, '/healthz')).status).toBe(200);
    expect((await get(port, '/readyz')).status).toBe(200);
    await app.stop();
    await expect(get(port, '/healthz')).rejects.toThrow();
  });

  it('report a platform that is not connected, and chats whose history is not being saved', async () => {
    world = await createAppWorld();
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    const port = app.opsPort ?? 0;
    world.telegram.pushUpdate(messageUpdate(dm, 'first'));
    await world.telegram.waitFor(
      () => world?.telegram.botMessages(11).some((m) => /You said: .*first/.test(m.text)) ?? false,
      10_000,
    );
    await app.bot.idle();
    // Saves fail from here on: a file where the sessions folder was.
    const sessions = join(world.root, 'data', 'sessions');
    await rename(sessions, `${sessions}.away`);
    await writeFile(sessions, 'not a directory');
    world.telegram.pushUpdate(messageUpdate(dm, 'remember this'));
    await world.telegram.waitFor(
      () => world?.telegram.botMessages(11).some((m) => /not being saved/.test(m.text)) ?? false,
      10_000,
    );
    const unsaved = await get(port, '/readyz');
    expect(unsaved.status).toBe(503);
    expect(unsaved.body).toMatch(/^saves: 1 chat is not being saved/m);

    const telegram = app.adapters.find((a) => a.platform === 'telegram');
    await telegram?.stop();
    const down = await get(port, '/readyz');
    expect(down.body).toMatch(/^telegram: not started$/m);
    await rm(sessions);
    await rename(`${sessions}.away`, sessions);
  });

  it('/readyz reports a chat whose /rename could not be saved, and ready again once a save works', async () => {
    world = await createAppWorld();
    const app = await world.start({ SWITCHBOARD_HTTP_PORT: '0' });
    const port = app.opsPort ?? 0;
    const shows = (pattern: RegExp) => () =>
      world?.telegram.botMessages(11).some((m) => pattern.test(m.text)) ?? false;
    world.telegram.pushUpdate(messageUpdate(dm, 'first'));
    await world.telegram.waitFor(shows(/You said: .*first/), 10_000);
    await app.bot.idle();
    const sessions = join(world.root, 'data', 'sessions');
    await rename(sessions, `${sessions}.away`);
    await writeFile(sessions, 'not a directory');
    world.telegram.pushUpdate(messageUpdate(dm, '/rename kept'));
    await world.telegram.waitFor(shows(/not being saved/), 10_000);
    const unsaved = await get(port, '/readyz');
    expect(unsaved.status).toBe(503);
    expect(unsaved.body).toMatch(/^saves: 1 chat is not being saved/m);

    await rm(sessions);
    await rename(`${sessions}.away`, sessions);
    world.telegram.pushUpdate(messageUpdate(dm, '/rename again'));
    await world.telegram.waitFor(shows(/Saving works again/), 10_000);
    expect(await get(port, '/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
  });

  it('answer on the Telegram webhook port without its secret, which the webhook itself still requires', async () => {
    world = await createAppWorld();
    const port = await freePort();
    await world.start({
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/telegram`,
      TELEGRAM_WEBHOOK_SECRET: 'ops_secret',
      TELEGRAM_WEBHOOK_PORT: String(port),
    });
    expect(await get(port, '/healthz')).toMatchObject({ status: 200 });
    expect(await get(port, '/readyz')).toMatchObject({ status: 200, body: 'ready\n' });
    expect((await get(port, '/metrics')).body).toContain('switchboard_turns_started_total');
    expect(await world.telegram.deliverWebhook(messageUpdate(dm, 'forged'), 'wrong')).toBe(401);
  });
});
