/**
 * Who may do what, through each platform's real SDK: a user outside the
 * allowlist runs nothing on Telegram, Slack or Discord (the model is never
 * called, the answer names their id); in a shared Telegram group only the
 * requester and an admin can answer an approval, and presses by anyone else
 * change nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { say } from '../../src/bot/text.js';
import { startApp as startDiscordApp } from '../adapters/discord/app.js';
import { mention } from '../adapters/discord/helpers.js';
import { startSlackApp } from '../adapters/slack/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/index.js';
import { type FakeSlack, startFakeSlack } from '../fakes/slack/index.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startTelegramWorld, type TelegramWorld } from '../reliability/telegram-world.js';

const cleanups = useCleanups();

async function tempRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'switchboard-access-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  return root;
}

describe('allowlist on every platform', () => {
  it('Telegram: a stranger runs nothing (messages, commands, buttons) and is told their id', async () => {
    const w = await startTelegramWorld({ factor: 10, allowed: [41] });
    cleanups.push(() => w.close());
    const eve = { chatId: 49, user: { id: 49 } };
    w.telegram.pushUpdate(messageUpdate(eve, 'run rm -rf /'));
    w.telegram.pushUpdate(messageUpdate(eve, '/mode bypassPermissions'));
    const press = callbackUpdate(eve, 1, 'a:0123456789');
    w.telegram.pushUpdate(press);
    await w.telegram.waitFor(
      () => w.texts(49).length === 2 && w.telegram.callsTo('answerCallbackQuery').length === 1,
      10_000,
    );
    for (const t of w.texts(49)) expect(t).toBe(say.notAllowed('telegram:49'));
    expect(w.telegram.callsTo('answerCallbackQuery')[0]?.text).toBe(say.notAllowed('telegram:49'));
    expect(w.anthropic.requests).toEqual([]);
  });

  it('Slack: a stranger runs nothing', async () => {
    const slack: FakeSlack = await startFakeSlack();
    const anthropic: FakeAnthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => slack.close(),
      () => anthropic.close(),
    );
    const app: RunningApp = await startSlackApp(slack, anthropic, root);
    cleanups.push(async () => {
      await app.stop();
      await slack.socket.waitForDisconnect();
    });
    await slack.userMessage({ channel: 'C1', user: 'U9', text: '<@UBOT> delete the repo' });
    // In a channel the refusal is shown to the stranger only: nothing public is posted for them.
    const refusal = () => slack.state.ephemerals.find((e) => e.channel === 'C1' && e.user === 'U9');
    await slack.until(() => refusal() !== undefined, 10_000, 'refusal');
    expect(refusal()?.text).toContain('slack:U9');
    expect(refusal()?.text).toMatch(/not allowed/);
    expect(slack.botMessages('C1')).toEqual([]);
    await slack.userMessage({ channel: 'D9', user: 'U9', text: 'and in a DM?' });
    await slack.until(() => slack.botMessages('D9').length > 0, 10_000, 'DM refusal');
    expect(anthropic.requests).toEqual([]);
  });

  it('Discord: a stranger runs nothing', async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    const anthropic: FakeAnthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => discord.close(),
      () => anthropic.close(),
    );
    const app = await startDiscordApp(discord, anthropic, root);
    cleanups.push(() => app.stop());
    const eve = discord.user('eve');
    discord.userMessage({
      channelId: discord.generalId,
      author: eve,
      content: `${mention(discord)} drop the db`,
    });
    const refusal = await discord.waitFor(
      () =>
        [...discord.messages.values()].find(
          (m) => m.author.id === discord.botUser.id && /not allowed/.test(m.content),
        ),
      'refusal',
    );
    expect(refusal.content).toContain(`discord:${eve.id}`);
    expect(anthropic.requests).toEqual([]);
  });
});

describe('approvals in a shared chat', () => {
  let w: TelegramWorld;
  const group = -100_500;
  const ann = { chatId: group, user: { id: 41, first_name: 'Ann' } };
  const bob = { chatId: group, user: { id: 42, first_name: 'Bob' } };
  const root = { chatId: group, user: { id: 43, first_name: 'Root' } };
  const eve = { chatId: group, user: { id: 49, first_name: 'Eve' } };

  it('only the requester or an admin can answer; other presses change nothing', async () => {
    w = await startTelegramWorld({ factor: 10, allowed: [41, 42], admins: [43] });
    cleanups.push(() => w.close());
    let toolRuns = 0;
    w.anthropic.setDefault((body) => {
      const last = body.messages.at(-1);
      if (
        typeof last.content !== 'string' &&
        last.content.some((b: { type: string }) => b.type === 'tool_result')
      ) {
        toolRuns++;
        return {
          text: `Tool finished: ${JSON.stringify(last.content).includes('denied') ? 'denied' : 'ran'}.`,
        };
      }
      return { text: 'Checking.', toolUse: [{ name: 'Bash', input: { command: 'echo approved-run' } }] };
    });
    const prompt = () =>
      w.telegram
        .botMessages(group)
        .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => b.text === 'Allow'));
    const button = (label: string): string => {
      const found = prompt()
        ?.replyMarkup?.inline_keyboard.flat()
        .find((b) => b.text === label);
      if (!found || !('callback_data' in found)) throw new Error(`no ${label} button`);
      return found.callback_data;
    };
    const pressAs = async (who: typeof ann, label: string): Promise<string | undefined> => {
      const update = callbackUpdate(who, prompt()?.messageId ?? 0, button(label));
      const id = (update.callback_query as { id: string }).id;
      w.telegram.pushUpdate(update);
      await w.telegram.waitFor(() =>
        w.telegram.callsTo('answerCallbackQuery').some((c) => c.callback_query_id === id),
      );
      return w.telegram.callsTo('answerCallbackQuery').find((c) => c.callback_query_id === id)
        ?.text as string;
    };

    // Ann's turn asks; Bob (allowed, not admin) and Eve (not allowed) cannot answer it.
    w.telegram.pushUpdate(messageUpdate(ann, '@switchboard_bot check the build'));
    await w.telegram.waitFor(() => prompt() !== undefined, 10_000);
    expect(await pressAs(bob, 'Allow')).toBe(say.approvalOnlyFor('Ann'));
    expect(await pressAs(eve, 'Allow')).toBe(say.notAllowed('telegram:49'));
    expect(toolRuns).toBe(0);
    expect(prompt()).toBeDefined();
    // The requester answers.
    expect(await pressAs(ann, 'Allow')).toBe(say.answered.allow);
    await w.telegram.waitFor(() => w.texts(group).some((t) => t.includes('Tool finished: ran')), 10_000);

    // Bob's turn: an admin may answer it.
    w.telegram.pushUpdate(messageUpdate(bob, '@switchboard_bot check it again'));
    await w.telegram.waitFor(() => prompt() !== undefined, 10_000);
    expect(await pressAs(ann, 'Allow')).toBe(say.approvalOnlyFor('Bob'));
    expect(await pressAs(root, 'Deny')).toBe(say.answered.deny);
    await w.telegram.waitFor(() => w.texts(group).some((t) => t.includes('Tool finished: denied')), 10_000);
    expect(toolRuns).toBe(2);
    expect(w.texts(group).some((t) => t.includes(say.denied('Root')))).toBe(true);
  });
});
