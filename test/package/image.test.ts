/**
 * The container image, built by running the Dockerfile's own lines in order
 * (test/package/dockerfile.ts: scratch roots under bubblewrap, this machine's
 * Debian bookworm and node standing in for the base image): the runtime
 * stage then holds the platform SDKs and pg and no build tools, its CMD
 * started with a Telegram token polls the fake Bot API and answers, its
 * HEALTHCHECK passes, and SIGTERM stops it with exit 0.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { messageUpdate, startFakeTelegram } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { aptPackages, buildStages, parseDockerfile, probeHealth, startCmd } from './dockerfile.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cleanups = useCleanups();

/** A port nothing listens on now (the image's default 9090 may be taken on a shared machine). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** The pid of `bwrap`'s one child (the CMD), so a signal reaches the bot itself. */
function commandPid(bwrapPid: number): number {
  const children = readFileSync(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').trim().split(/\s+/);
  expect(children.length).toBe(1);
  return Number(children[0]);
}

describe('the container image, built from the Dockerfile as written', () => {
  it('runs every platform: its CMD polls the fake Bot API and answers, passes its HEALTHCHECK, and stops on SIGTERM', async () => {
    const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(stages.map((s) => s.from)).toEqual(['node:20-bookworm-slim', 'node:20-bookworm-slim']);
    // The base image's package manager is the one step not run here: what it installs must be here already.
    const runtime = stages.at(-1);
    const packages = runtime ? aptPackages(runtime) : [];
    expect(packages).toContain('bubblewrap');
    execFileSync('dpkg', ['-s', ...packages], { stdio: 'ignore' });

    const scratch = await cleanups.tempRoot('image');
    const image = await buildStages(stages, ROOT, scratch, (text) => text.startsWith('apt-get '));
    const modules = join(image.root, 'app', 'node_modules');
    for (const name of [
      'grammy',
      '@grammyjs/runner',
      '@grammyjs/auto-retry',
      '@slack/bolt',
      'discord.js',
      'pg',
    ]) {
      expect(existsSync(join(modules, name, 'package.json')), name).toBe(true);
    }
    for (const name of ['typescript', 'vitest', '@biomejs/biome']) {
      expect(existsSync(join(modules, name)), name).toBe(false);
    }
    expect(existsSync(join(image.root, 'app', '.env.example'))).toBe(true);

    const anthropic = await startFakeAnthropic();
    const telegram = await startFakeTelegram();
    cleanups.push(
      () => anthropic.close(),
      () => telegram.close(),
    );
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-image-test-0123456789',
      ANTHROPIC_BASE_URL: anthropic.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
      SWITCHBOARD_HTTP_PORT: String(await freePort()),
      SWITCHBOARD_ALLOWED_USERS: 'telegram:123456789',
      SWITCHBOARD_LOG_LEVEL: 'info',
    };
    const bot = startCmd(image, env);
    let output = '';
    bot.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    bot.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const exited = once(bot, 'exit');
    cleanups.push(async () => {
      if (bot.exitCode === null && bot.signalCode === null) {
        bot.kill('SIGKILL');
        await exited;
      }
    });

    await telegram
      .waitFor(() => telegram.callsTo('getUpdates').length > 0, 60_000)
      .catch(() => {
        throw new Error(`the image's bot never polled; its output:\n${output}`);
      });
    telegram.pushUpdate(
      messageUpdate({ chatId: 123456789, user: { id: 123456789, first_name: 'Ann' } }, 'hi'),
    );
    await telegram.waitFor(() => telegram.botMessages(123456789).some((m) => /hi/.test(m.text)), 60_000);

    expect(await probeHealth(image, env)).toBe(true);

    process.kill(commandPid(bot.pid ?? 0), 'SIGTERM');
    const [code] = await exited;
    expect({ code, output }).toMatchObject({ code: 0 });
  }, 420_000);
});
