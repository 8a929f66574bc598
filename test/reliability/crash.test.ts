/**
 * Crash and restart: the ready bot (`src/main.ts`, as `npm start` runs it)
 * is a child process polling the fake Bot API. It is SIGKILLed while a reply
 * streams (the fake has shown several draft updates) and while another chat
 * waits on an approval, then started again over the same data directory.
 *
 * Telegram's offset rule: getUpdates with `offset` confirms every update
 * below it. grammY's runner asks for the next batch (offset = last id + 1)
 * as soon as a batch arrives, so the update whose turn was cut had been
 * confirmed and is not fetched again: it must not start a second turn, and
 * the chat is told to send it again. An update that arrived while the bot
 * was down was never confirmed and must be handled after the restart; an
 * update offered again after it was answered (its confirmation lost) must be
 * ignored by the core's persisted window of delivery ids.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { createBotStateStore, createUserSessionStore } from '../../src/store/index.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { useChildBotWorld } from './child-bot.js';
import { TG_API_KEY, TG_TOKEN } from './telegram-world.js';

const world = useChildBotWorld('switchboard-crash-');

const ANN = { chatId: 11, user: { id: 11, first_name: 'Ann' } };
const BOB = { chatId: 22, user: { id: 22, first_name: 'Bob' } };
const LONG = Array.from({ length: 80 }, (_, i) => `Sentence ${i + 1} of a long story. `);

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
function lastUserText(body: any): string {
  const last = body.messages.at(-1);
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((b: { type: string }) => b.type === 'text')
    .map((b: { text: string }) => b.text)
    .join('\n');
}

describe('crash and restart (SIGKILL mid-turn)', () => {
  it('keeps every session valid, tells the cut chats, handles each update once, expires old approvals', async () => {
    const w = await world.open();
    const tg = w.telegram;
    const model = w.anthropic;
    const root = w.root;
    model.setDefault((body) => {
      const text = lastUserText(body);
      if (text.includes('long story')) return { text: LONG, chunkDelayMs: 100 };
      if (text.includes('run the tests') && !JSON.stringify(body.messages).includes('tool_result'))
        return { text: 'Running them.', toolUse: [{ name: 'Bash', input: { command: 'echo tests' } }] };
      return { text: `You said: ${text}` };
    });
    const texts = (chatId: number) => tg.botMessages(chatId).map((m) => m.text);

    // Run 1: a completed turn, a turn waiting on approval, and a turn streaming when killed.
    const first = await w.start();
    const kiwi = messageUpdate(ANN, 'remember the word kiwi');
    const kiwiId = tg.pushUpdate(kiwi);
    await tg.waitFor(() => texts(11).some((t) => t.includes('remember the word kiwi')), 45_000);
    tg.pushUpdate(messageUpdate(BOB, 'please run the tests'));
    const prompt = () =>
      tg.botMessages(22).find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => b.text === 'Allow'));
    await tg.waitFor(() => prompt() !== undefined, 45_000);
    const storyId = tg.pushUpdate(messageUpdate(ANN, 'tell a long story'));
    const shownDrafts = () =>
      tg.draftsIn(11).flatMap((d) => d.texts.filter((t) => t.includes('Sentence'))).length;
    await tg.waitFor(() => shownDrafts() >= 3, 45_000);
    await first.kill();
    expect((await first.exited).signal).toBe('SIGKILL');
    const storyRequests = model.requests.filter((b) => lastUserText(b).includes('long story')).length;
    expect(storyRequests).toBe(1);
    const lastStorySentence = LONG.at(-1)?.trim() ?? '?';
    expect(texts(11).join('\n')).not.toContain(lastStorySentence);

    // Every session on disk loads valid; the completed exchange is intact.
    const sessions = createUserSessionStore(join(root, 'data', 'sessions'));
    const listed = await sessions.list();
    expect(listed.length).toBe(2);
    expect(listed.map((e) => e.outcome.status)).toEqual(['valid', 'valid']);
    const annBinding = await createBotStateStore(join(root, 'data')).getChat('telegram:11');
    const annSession = await sessions.load(annBinding?.sessionId ?? '?');
    expect(annSession.status).toBe('valid');
    if (annSession.status !== 'valid') return;
    const [asked, answered] = annSession.record.messages;
    expect(asked?.role).toBe('user');
    expect(JSON.stringify(asked?.content)).toContain('remember the word kiwi');
    expect(answered?.role).toBe('assistant');
    expect(JSON.stringify(answered?.content)).toContain('You said:');
    expect(answered?.state ?? 'complete').toBe('complete');

    // While the bot is down, a message arrives: it was never fetched, so never confirmed.
    const offlineId = tg.pushUpdate(messageUpdate(BOB, 'sent while the bot was down'));
    // And an update the bot had answered is offered again, as Telegram does when the
    // confirmation never reached it: the core's persisted delivery window must ignore it.
    tg.state.queue.unshift({ update_id: kiwiId, ...kiwi } as (typeof tg.state.queue)[number]);
    const callsBefore = tg.state.calls.length;
    const pendingAtRestart = tg.state.queue.map((u) => u.update_id);

    // Run 2 over the same data directory.
    const second = await w.start();
    await tg.waitFor(() => texts(11).includes(say.crashNotice), 15_000);
    await tg.waitFor(() => texts(22).some((t) => t.includes('sent while the bot was down')), 45_000);
    await second.waitForLog(/"chat":"telegram:11".*reply was cut off by a restart/);
    // Bob's reply waits on its approval prompt, which still answers: no notice that it was cut.
    await second.waitForLog(/"chat":"telegram:22".*approval waits; its prompt still answers/);
    expect(texts(22)).not.toContain(say.crashNotice);

    // The cut update was confirmed by run 1's next poll (offset past it) before the crash,
    // so Telegram does not hand it out again; the update sent while down was still pending.
    const confirmed = tg.state.calls
      .slice(0, callsBefore)
      .filter((c) => c.method === 'getUpdates' && Number(c.params.offset ?? 0) > storyId);
    expect(confirmed.length).toBeGreaterThan(0);
    expect(pendingAtRestart).toEqual([kiwiId, offlineId]);
    expect(offlineId).toBeGreaterThan(storyId);
    expect(model.requests.filter((b) => lastUserText(b).includes('long story'))).toHaveLength(1);
    expect(model.requests.filter((b) => lastUserText(b).includes('while the bot was down'))).toHaveLength(1);
    expect(model.requests.filter((b) => lastUserText(b).includes('remember the word kiwi'))).toHaveLength(1);
    expect(texts(11).filter((t) => t.includes('remember the word kiwi'))).toHaveLength(1);
    expect(await second.waitForLog(/duplicate delivery ignored/)).toContain('telegram:11');

    // The approval from before the crash: pressing it now gets an answer, not silence.
    const allow = prompt()
      ?.replyMarkup?.inline_keyboard.flat()
      .find((b) => b.text === 'Allow') as { callback_data: string };
    const press = callbackUpdate(BOB, prompt()?.messageId ?? 0, allow.callback_data);
    const pressId = (press.callback_query as { id: string }).id;
    tg.pushUpdate(press);
    await tg.waitFor(() => tg.callsTo('answerCallbackQuery').some((c) => c.callback_query_id === pressId));
    const answer = tg.callsTo('answerCallbackQuery').find((c) => c.callback_query_id === pressId);
    expect(answer?.text).toBe(say.expired);

    // The session of the cut chat goes on, with its history.
    tg.pushUpdate(messageUpdate(ANN, 'what was the word?'));
    await tg.waitFor(() => texts(11).some((t) => t.includes('what was the word?')), 45_000);
    expect(JSON.stringify(model.requests.at(-1).messages)).toContain('remember the word kiwi');

    const everything = [...first.lines, ...second.lines, ...first.stderr, ...second.stderr].join('\n');
    expect(everything).not.toContain(TG_TOKEN);
    expect(everything).not.toContain(TG_API_KEY);
    // Two starts of the compiled bot, each awaited by its start line: generous for a loaded machine.
  }, 300_000);
});
