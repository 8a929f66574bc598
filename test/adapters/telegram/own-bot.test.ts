/**
 * A library user's own grammY bot with switchboard inside it, written as the
 * README's library section shows it and built only from the public entry
 * points (`switchboard` is src/index.ts, `switchboard/telegram` is
 * adapters/telegram/index.ts): the user's `new Bot(...)` with their own
 * middleware and command, started by the user with grammY's own sequential
 * poller (`bot.start()`, one update at a time), against the fake Bot API
 * and the fake Messages API.
 *
 * What it shows: the adapter joins that bot (no second poller: one
 * deleteWebhook and one getUpdates loop, the user's), the user's middleware
 * sees every update and their /ping still answers, an approval is pressed
 * and answered while the sequential poller runs (the turn is handed off, so
 * the button's update is not stuck behind it), and after a restart over the
 * same data directory the chat continues the same session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bot } from 'grammy';
import { afterEach, expect, it } from 'vitest';
import { ALLOWED_UPDATES, createTelegramAdapter } from '../../../adapters/telegram/index.js';
import {
  AnthropicProvider,
  createBot,
  createBotStateStore,
  createSessionFactory,
  createUserSessionStore,
} from '../../../src/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import {
  callbackUpdate,
  type FakeTelegram,
  messageUpdate,
  startFakeTelegram,
} from '../../fakes/telegram/index.js';
import { chatView } from './helpers.js';

let telegram: FakeTelegram | undefined;
let anthropic: FakeAnthropic | undefined;
let root: string | undefined;
const running: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
  await telegram?.close();
  await anthropic?.close();
  if (root) await rm(root, { recursive: true, force: true });
  telegram = anthropic = root = undefined;
});

const ANN = { id: 11, first_name: 'Ann' };
const dm = { chatId: 11, user: ANN };

/** The user's project: their bot, their middleware, switchboard joined to it; returns what it logged. */
async function userProject(world: { telegram: FakeTelegram; anthropic: FakeAnthropic; root: string }) {
  const seen: number[] = [];
  // --- as in the README ---
  const bot = new Bot(world.telegram.token, { client: { apiRoot: world.telegram.url } });
  bot.use(async (ctx, next) => {
    seen.push(ctx.update.update_id);
    await next();
  });
  bot.command('ping', (ctx) => ctx.reply('pong'));

  const agent = createBot({
    adapters: [createTelegramAdapter({ bot })],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({ apiKey: 'sk-ant-own-bot-0123456789', baseURL: world.anthropic.url }),
      sessionStore: createUserSessionStore(join(world.root, 'data', 'sessions')),
      workspace: join(world.root, 'workspace'),
    }),
    // The chat -> session map lives here: a restart picks each chat's session up again.
    stores: { state: createBotStateStore(join(world.root, 'data')) },
    access: { allowedUsers: ['telegram:11'] },
  });
  await agent.start();
  const polling = new Promise<void>((resolve, reject) => {
    bot.start({ allowed_updates: [...ALLOWED_UPDATES], onStart: () => resolve() }).catch(reject);
  });
  // --- end ---
  await polling;
  const stop = async () => {
    await bot.stop();
    await agent.stop();
  };
  running.push(stop);
  return { seen, stop };
}

it('joins the user’s own bot: their middleware and command keep working, approvals flow, the session survives a restart', async () => {
  telegram = await startFakeTelegram();
  anthropic = await startFakeAnthropic();
  const { texts, until } = chatView(telegram, 11);
  root = await mkdtemp(join(tmpdir(), 'sb-own-bot-'));
  const world = { telegram, anthropic, root };
  const first = await userProject(world);

  telegram.pushUpdate(messageUpdate(dm, '/ping'));
  await until(() => texts().includes('pong'), 'pong');

  anthropic.enqueue(
    { text: 'Writing it.', toolUse: [{ name: 'Write', input: { file_path: 'note.txt', content: 'kiwi' } }] },
    { text: 'Saved the note.' },
  );
  telegram.pushUpdate(messageUpdate(dm, 'remember the word kiwi'));
  const prompt = () =>
    telegram
      ?.botMessages(11)
      .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => b.text === 'Allow'));
  await until(() => prompt() !== undefined, 'the approval prompt');
  const allow = prompt()
    ?.replyMarkup?.inline_keyboard.flat()
    .find((b) => b.text === 'Allow') as { callback_data: string };
  telegram.pushUpdate(callbackUpdate(dm, prompt()?.messageId ?? 0, allow.callback_data));
  await until(() => texts().includes('Saved the note.'), 'the reply after Allow');

  // One poller, the user's: the adapter neither deleted a webhook nor polled on its own.
  expect(telegram.callsTo('deleteWebhook')).toHaveLength(1);
  // The user's middleware saw every update, the agent's included; /ping never reached the model.
  expect(first.seen).toHaveLength(3);
  expect(JSON.stringify(anthropic.requests)).not.toContain('/ping');
  await first.stop();

  // Restarted over the same data directory: the chat continues its session.
  await userProject(world);
  telegram.pushUpdate(messageUpdate(dm, 'which word?'));
  await until(
    () => texts().some((t) => /^You said: .*which word\?$/.test(t)),
    'the answer after the restart',
  );
  expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('remember the word kiwi');
});

it('refuses a token and a bot together, and neither, saying which to pass', () => {
  expect(() => createTelegramAdapter({})).toThrow(/either `token`.*or `bot`/);
  expect(() => createTelegramAdapter({ token: 't', bot: new Bot('t') })).toThrow(/not both/);
});
