/**
 * What the model's tools can reach when the ready bot runs them: the bot
 * (`src/main.ts` as a child process, on Telegram) is started with its tokens
 * and key in its environment plus other credentials under ordinary names; an
 * admin switches the chat to bypassPermissions and the model runs `env` and
 * tries to read outside the workspace. The tool results the model gets back
 * (recorded by the fake Anthropic API) hold none of it.
 */
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic, toolResults } from '../fakes/anthropic.js';
import { type FakeTelegram, messageUpdate, startFakeTelegram } from '../fakes/telegram/index.js';
import { type ChildBot, startChildBot } from '../reliability/child-bot.js';
import { TG_API_KEY, TG_TOKEN } from '../reliability/telegram-world.js';

let telegram: FakeTelegram | undefined;
let anthropic: FakeAnthropic | undefined;
let root: string | undefined;
let bot: ChildBot | undefined;

afterEach(async () => {
  await bot?.kill();
  await telegram?.close();
  await anthropic?.close();
  if (root) await rm(root, { recursive: true, force: true });
  telegram = anthropic = root = bot = undefined;
});

const ADMIN = { chatId: 11, user: { id: 11, first_name: 'Ann' } };
const USER = { chatId: 22, user: { id: 22, first_name: 'Bob' } };
const OTHER_KEY = 'other-service-key-5f1e2d3c4b5a';
const UPSTREAM = `https://relay.invalid/hook?token=${TG_TOKEN}`;
const OUTSIDE_SECRET = 'outside-the-workspace-7c1d';

describe('tools under the ready bot', () => {
  it('Bash `env` sees none of the bot secrets; file tools refuse paths that leave the workspace', async () => {
    telegram = await startFakeTelegram({ token: TG_TOKEN });
    anthropic = await startFakeAnthropic();
    root = await mkdtemp(join(tmpdir(), 'switchboard-tools-'));
    const tg = telegram;
    const model = anthropic;
    const workspace = join(root, 'workspace');
    const outside = join(root, 'outside');
    await mkdir(workspace, { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'secret.txt'), OUTSIDE_SECRET);
    await symlink(outside, join(workspace, 'escape'));
    const plan: Record<string, { name: string; input: Record<string, unknown> }[]> = {
      'show the environment': [{ name: 'Bash', input: { command: 'env' } }],
      'read around': [
        { name: 'Read', input: { file_path: '../outside/secret.txt' } },
        { name: 'Read', input: { file_path: join(outside, 'secret.txt') } },
        { name: 'Read', input: { file_path: 'escape/secret.txt' } },
        { name: 'Write', input: { file_path: '../outside/planted.txt', content: 'x' } },
      ],
    };
    model.setDefault((body) => {
      const last = body.messages.at(-1);
      if (
        typeof last.content !== 'string' &&
        last.content.some((b: { type: string }) => b.type === 'tool_result')
      )
        return { text: 'Done.' };
      const text = JSON.stringify(last.content);
      const key = Object.keys(plan).find((k) => text.includes(k));
      const toolUse = key === undefined ? undefined : plan[key];
      return toolUse ? { text: 'On it.', toolUse } : { text: 'OK.' };
    });
    bot = startChildBot(
      {
        ANTHROPIC_API_KEY: TG_API_KEY,
        ANTHROPIC_BASE_URL: model.url,
        TELEGRAM_BOT_TOKEN: TG_TOKEN,
        TELEGRAM_API_ROOT: tg.url,
        SWITCHBOARD_DATA_DIR: join(root, 'data'),
        SWITCHBOARD_WORKSPACE: workspace,
        SWITCHBOARD_ALLOWED_USERS: 'telegram:11,telegram:22',
        SWITCHBOARD_ADMINS: 'telegram:11',
        SWITCHBOARD_LOG_LEVEL: 'debug',
        MY_SERVICE_API_KEY: OTHER_KEY,
        UPSTREAM_HOOK: UPSTREAM,
      },
      root,
    );
    await bot.waitForLog(/switchboard started/);
    const texts = (chatId: number) => tg.botMessages(chatId).map((m) => m.text);
    const until = (predicate: () => boolean, what: string) =>
      tg.waitFor(predicate, 15_000).catch(() => {
        throw new Error(
          `${what} never happened; chat 11: ${JSON.stringify(texts(11))}; chat 22: ${JSON.stringify(texts(22))}; ` +
            `tool results: ${JSON.stringify(toolResults(model.requests)).slice(0, 2000)}`,
        );
      });

    // Only an admin may turn approvals off.
    tg.pushUpdate(messageUpdate(USER, '/mode bypassPermissions'));
    await until(() => texts(22).length === 1, 'refusal');
    expect(texts(22)[0]).toMatch(/admin/i);
    tg.pushUpdate(messageUpdate(ADMIN, '/mode bypassPermissions'));
    await until(() => texts(11).length === 1, 'mode change');
    expect(texts(11)[0]).toMatch(/bypassPermissions/);

    tg.pushUpdate(messageUpdate(ADMIN, 'show the environment'));
    await until(() => toolResults(model.requests).length === 1, 'env result');
    const [env] = toolResults(model.requests);
    expect(env?.isError).toBe(false);
    expect(env?.text).toMatch(/^PATH=/m);
    for (const secret of [TG_TOKEN, TG_API_KEY, OTHER_KEY, UPSTREAM]) expect(env?.text).not.toContain(secret);
    expect(env?.text).not.toMatch(/^(ANTHROPIC|TELEGRAM|SWITCHBOARD)_/m);
    expect(env?.text).not.toContain('MY_SERVICE_API_KEY');

    tg.pushUpdate(messageUpdate(ADMIN, 'read around'));
    await until(() => toolResults(model.requests).length === 5, 'escape results');
    const escapes = toolResults(model.requests).slice(1);
    for (const result of escapes) {
      expect(result.isError, result.text).toBe(true);
      expect(result.text).toMatch(/outside|workspace/i);
      expect(result.text).not.toContain(OUTSIDE_SECRET);
    }
    await until(() => texts(11).filter((t) => t.endsWith('Done.')).length === 2, 'both turns done');
    await expect(stat(join(outside, 'planted.txt'))).rejects.toThrow(/ENOENT/);
    const seen = [...bot.lines, ...bot.stderr, ...texts(11), ...texts(22)].join('\n');
    for (const secret of [TG_TOKEN, TG_API_KEY]) expect(seen).not.toContain(secret);
  }, 90_000);
});
