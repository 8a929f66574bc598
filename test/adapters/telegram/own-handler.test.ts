/**
 * The README's hand-written handler (Library › Inside a bot you already
 * run): a user's grammY bot that drives InteractiveSession itself, written
 * as the README shows it and built only from the public entry point
 * (src/index.ts), polled by grammY's own sequential `bot.start()`, against
 * the fake Bot API and the fake Messages API. The turn is handed off, not
 * awaited in the handler, so the approval button pressed mid-turn is
 * handled and the turn finishes; the chat -> session map in the bot-state
 * store brings the same session back after a restart.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bot } from 'grammy';
import { afterEach, expect, it } from 'vitest';
import {
  AnthropicProvider,
  createBotStateStore,
  createUserSessionStore,
  InteractiveSession,
  type PendingPermission,
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
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await telegram?.close();
  await anthropic?.close();
  if (root) await rm(root, { recursive: true, force: true });
  telegram = anthropic = root = undefined;
});

const dm = { chatId: 11, user: { id: 11, first_name: 'Ann' } };

/** The README's snippets, with the fakes' addresses and a temp folder in place of the real ones. */
async function userProject(fakes: { telegram: FakeTelegram; anthropic: FakeAnthropic }, dir: string) {
  const bot = new Bot(fakes.telegram.token, { client: { apiRoot: fakes.telegram.url } });
  const provider = new AnthropicProvider({
    apiKey: 'sk-ant-own-handler-0123456789',
    baseURL: fakes.anthropic.url,
  });
  // --- as in the README ---
  const state = createBotStateStore(join(dir, 'data'));
  const store = createUserSessionStore(join(dir, 'data', 'sessions'));
  const open = new Map<number, Promise<InteractiveSession>>();
  const waiting = new Map<string, PendingPermission>();
  function sessionFor(chatId: number): Promise<InteractiveSession> {
    let session = open.get(chatId);
    if (!session) {
      session = openSession(chatId);
      open.set(chatId, session);
    }
    return session;
  }
  async function openSession(chatId: number): Promise<InteractiveSession> {
    const key = `telegram:${chatId}`;
    const known = await state.getChat(key);
    const session = new InteractiveSession({
      cwd: join(dir, 'workspace'),
      provider,
      sessionStore: store,
      ...(known ? { resumeSessionId: known.sessionId } : {}),
    });
    await session.ready;
    if (!known) {
      const sessionId = session.getSession().getSessionId();
      await state.setChat(key, { sessionId, updatedAt: new Date().toISOString() });
    }
    session.on('permission_request', (req) => {
      waiting.set(req.id, req);
      void req.settled.then(() => waiting.delete(req.id)); // answered, timed out or stopped
      void bot.api.sendMessage(chatId, `Allow ${req.summary}?`, {
        reply_markup: { inline_keyboard: [[{ text: 'Allow', callback_data: `allow:${req.id}` }]] },
      });
    });
    return session;
  }
  bot.on('message:text', (ctx) => {
    void sessionFor(ctx.chat.id)
      .then((session) => session.submit(ctx.message.text))
      .then(({ completed }) => completed)
      .then((result) => ctx.reply(result.response))
      .catch((err) => ctx.reply(`Failed: ${err.message}`));
  });
  bot.callbackQuery(/^allow:(.+)$/, async (ctx) => {
    waiting.get(ctx.match[1]!)?.answer('allow');
    await ctx.answerCallbackQuery('Allowed');
  });
  // --- end ---
  await new Promise<void>((resolve, reject) => {
    bot.start({ onStart: () => resolve() }).catch(reject);
  });
  const stop = async () => {
    await bot.stop();
    // Saves in flight land before the next process reads the same files.
    for (const session of open.values()) await (await session).getSession().lastSave();
    await state.flush();
  };
  stops.push(stop);
  return { stop };
}

it('the README’s own handler: an approval pressed mid-turn is handled by the sequential poller; a restart keeps the session', async () => {
  telegram = await startFakeTelegram();
  anthropic = await startFakeAnthropic();
  const { texts, until } = chatView(telegram, 11);
  root = await mkdtemp(join(tmpdir(), 'sb-own-handler-'));
  await mkdir(join(root, 'workspace'));
  const fakes = { telegram, anthropic };
  const first = await userProject(fakes, root);

  anthropic.enqueue(
    { text: 'Writing it.', toolUse: [{ name: 'Write', input: { file_path: 'note.txt', content: 'kiwi' } }] },
    { text: 'Saved the note.' },
  );
  telegram.pushUpdate(messageUpdate(dm, 'remember the word kiwi'));
  const prompt = () => telegram?.botMessages(11).find((m) => m.text.startsWith('Allow Write'));
  await until(() => prompt() !== undefined, 'the approval prompt');
  const data = prompt()?.replyMarkup?.inline_keyboard[0]?.[0] as { callback_data: string };
  telegram.pushUpdate(callbackUpdate(dm, prompt()?.messageId ?? 0, data.callback_data));
  await until(() => texts().some((t) => t.includes('Saved the note.')), 'the reply after Allow');
  await first.stop();

  await userProject(fakes, root);
  telegram.pushUpdate(messageUpdate(dm, 'which word?'));
  await until(() => texts().some((t) => /^You said: .*which word\?/.test(t)), 'the answer after the restart');
  expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('remember the word kiwi');
});
