/**
 * The ready bot's process life as a deployment sees it: it stops by itself
 * when the reader of its output goes away (`npm start | head`), and it warns
 * at start when a platform is configured but nobody is allowed to use it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { startSwitchboard } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/telegram/index.js';
import { BUILT_MAIN } from '../helpers/dist.js';

const KEY = 'sk-ant-lifecycle-key-0123456789';

let dir: string;
let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchboard-lifecycle-'));
  anthropic = await startFakeAnthropic();
  telegram = await startFakeTelegram();
});
afterAll(async () => {
  await Promise.all([anthropic.close(), telegram.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('the ready bot process', () => {
  it('stops with exit 0 when its output pipe closes, while its input stays open', async () => {
    const child = spawn(process.execPath, [BUILT_MAIN], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        SWITCHBOARD_LOG_LEVEL: 'silent',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // Like `| head -1`: read the first line, then close the reading end.
    await new Promise<void>((ready) => child.stdout?.once('data', () => ready()));
    child.stdout?.destroy();
    // The next reply has nowhere to go; stdin stays open, so only the closed pipe can end the process.
    child.stdin?.write('hello\n');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exited;
    clearTimeout(timer);
    expect(code).toBe(0);
  }, 90_000);

  it('warns at start, naming SWITCHBOARD_ALLOWED_USERS, when a platform runs and nobody is allowed', async () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });
    const config = loadConfig({
      env: {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_ROOT: telegram.url,
        SWITCHBOARD_DATA_DIR: join(dir, 'data'),
        SWITCHBOARD_WORKSPACE: join(dir, 'workspace'),
      },
      cwd: dir,
    });
    const app = await startSwitchboard(config, { logger });
    await app.stop();
    const warning = lines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.level === 40);
    expect(warning?.msg).toMatch(/Nobody is allowed to use this bot: SWITCHBOARD_ALLOWED_USERS is empty/);

    lines.length = 0;
    const allowed = await startSwitchboard({ ...config, allowedUsers: ['telegram:11'] }, { logger });
    await allowed.stop();
    expect(lines.join('')).not.toContain('Nobody is allowed');
  });

  it('warns at start when trusted project access shares one workspace, and not with one per chat', async () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });
    const config = loadConfig({
      env: {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        SWITCHBOARD_DATA_DIR: join(dir, 'data-trusted'),
        SWITCHBOARD_WORKSPACE: join(dir, 'workspace-trusted'),
        SWITCHBOARD_PROJECT_ACCESS: 'trusted',
      },
      cwd: dir,
    });
    const shared = await startSwitchboard({ ...config, platforms: {} }, { logger });
    await shared.stop();
    const warnings = lines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level === 40);
    expect(warnings.map((w) => w.msg).join('\n')).toMatch(
      /Trusted project access with one shared workspace: .* Set SWITCHBOARD_WORKSPACE_PER_CHAT=true/,
    );

    lines.length = 0;
    const perChat = await startSwitchboard({ ...config, platforms: {}, workspacePerChat: true }, { logger });
    await perChat.stop();
    expect(lines.join('')).not.toContain('shared workspace');
  });
});
