import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackAdapter } from '../../adapters/slack/index.js';
import { createBot } from '../../src/bot/index.js';
import { silentLogger } from '../../src/logger.js';
import { AnthropicProvider } from '../../src/provider/index.js';
import { createSessionFactory } from '../../src/session/factory.js';
import { createBotStateStore, createUserSessionStore } from '../../src/store/index.js';
import { botTexts, startScaledApp } from '../adapters/discord/app.js';
import { mention } from '../adapters/discord/helpers.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { startFakeSlack, visibleText } from '../fakes/slack/index.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startTelegramWorld, type TelegramWorld, watchUnhandled } from './telegram-world.js';

const CALL_TIMEOUT_MS = 1000;
const ANSWER = 'All is well.';
/** The answer in two chunks a moment apart, so the reply streams: a first message, then an edit. */
const answer = () => ({ text: ['All is ', 'well.'], chunkDelayMs: 200 });

const cleanups = useCleanups();
let world: TelegramWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const tempRoot = () => cleanups.tempRoot('hung');

describe('a platform call that is never answered', () => {
  it('Discord: the reply arrives whole and once after its first send and first edit hang', async () => {
    const unhandled = watchUnhandled();
    const discord = await startFakeDiscord();
    const anthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => discord.close(),
      () => anthropic.close(),
    );
    const app = await startScaledApp(discord, anthropic, root, { callTimeoutMs: CALL_TIMEOUT_MS });
    cleanups.push(() => app.stop());
    anthropic.setDefault(answer);
    discord.addFault({ route: 'POST /channels/:id/messages', hang: true, times: 1 });
    discord.addFault({ route: 'PATCH /channels/:id/messages/:id', hang: true, times: 1 });
    const opening = discord.userMessage({
      channelId: discord.generalId,
      author: discord.user('alice'),
      content: `${mention(discord)} how is it?`,
    });
    const shown = await discord.waitFor(
      () => botTexts(discord, opening.id).find((m) => m.content === ANSWER && m.components.length === 0),
      'the whole answer without its Stop button',
    );
    await app.bot.idle();
    expect(botTexts(discord, opening.id)).toEqual([shown]);
    const sends = discord.calls.filter((c) => c.method === 'POST' && c.route === '/channels/:id/messages');
    expect(sends.map((c) => c.status)).toEqual([-2, 200]);
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  });

  it('Slack: the reply arrives whole and once after an update of its stream hangs', async () => {
    const unhandled = watchUnhandled();
    const slack = await startFakeSlack();
    const anthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => slack.close(),
      () => anthropic.close(),
    );
    const adapter = createSlackAdapter({
      token: slack.botToken,
      appToken: slack.appToken,
      apiUrl: slack.apiUrl,
      port: 0,
      host: '127.0.0.1',
      callTimeoutMs: CALL_TIMEOUT_MS,
    });
    const bot = createBot({
      adapters: [adapter],
      sessions: createSessionFactory({
        provider: new AnthropicProvider({ apiKey: 'sk-ant-hung-0123456789', baseURL: anthropic.url }),
        sessionStore: createUserSessionStore(join(root, 'data', 'sessions')),
        workspace: join(root, 'workspace'),
      }),
      stores: { state: createBotStateStore(join(root, 'data')) },
      access: { allowedUsers: ['slack:U1'] },
      logger: silentLogger,
    });
    await bot.start();
    cleanups.push(async () => {
      await bot.stop();
      await slack.socket.waitForDisconnect();
    });
    await slack.socket.waitForConnection();
    anthropic.setDefault(answer);
    slack.faults.push({ method: /^chat\.(appendStream|stopStream|update)$/, hang: true, times: 1 });
    const { ts } = await slack.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> how is it?' });
    const texts = () =>
      slack
        .botMessages('C1', ts)
        .filter((m) => m.streamState !== 'streaming')
        .map(visibleText);
    await slack.until(() => texts().some((t) => t.trim() === ANSWER), 10_000, 'the whole answer');
    await bot.idle();
    expect(texts().map((t) => t.trim())).toEqual([ANSWER]);
    expect(slack.calls.filter((c) => c.error === 'hung')).toHaveLength(1);
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  });

  it('Telegram: the reply arrives whole and once after its first draft or send and its final send hang', async () => {
    const unhandled = watchUnhandled();
    const id = 7001;
    world = await startTelegramWorld({ factor: 10, allowed: [id], callTimeoutMs: CALL_TIMEOUT_MS });
    const w = world;
    w.anthropic.setDefault(answer);
    w.telegram.fault({ method: /^send(Rich)?Message(Draft)?$/, kind: 'hang', times: 1 });
    w.telegram.fault({ method: /^send(Rich)?Message$/, kind: 'hang', times: 1 });
    w.telegram.pushUpdate(messageUpdate({ chatId: id, user: { id } }, 'how is it?'));
    await w.telegram.waitFor(() => w.texts(id).some((t) => t.trim() === ANSWER), 10_000);
    await w.bot.idle();
    await w.bot.outbox.idle();
    expect(w.texts(id).map((t) => t.trim())).toEqual([ANSWER]);
    const hung = w.telegram.state.calls.filter((c) => c.outcome === 0 && c.description === 'hung');
    expect(hung).toHaveLength(2);
    const last = w.telegram.botMessages(id).at(-1);
    expect(last?.replyMarkup?.inline_keyboard ?? []).toEqual([]);
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  });
});
