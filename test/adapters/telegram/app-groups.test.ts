/**
 * End to end in groups and forum topics: the real grammy bot against the fake
 * Bot API, the real core, sessions and stores, and the fake Anthropic API.
 * The first test runs Telegram's real group paces through startSwitchboard
 * (one edit per 3 s, 20 calls per minute); the others scale the declared
 * paces and the fake's limits down by the same factor (10x) to stay fast.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callbackUpdate, messageUpdate } from '../../fakes/telegram/index.js';
import { ANN, type AppWorld, BOB, createAppWorld } from './app-harness.js';

/** Group paces and the fake's group limits, both 10x faster than Telegram's. */
const SCALED_PACES = { groupEditIntervalMs: 300, groupBudget: { count: 20, windowMs: 6000 } };
const SCALED_LIMITS = { group: { count: 20, windowMs: 5000 }, perMessage: { count: 1, windowMs: 250 } };
const scaledWorld = async () => {
  const w = await createAppWorld({ limits: SCALED_LIMITS });
  await w.startWithPaces(SCALED_PACES);
  return w;
};

let world: AppWorld;
const GROUP = -100500;

afterEach(async () => {
  await world?.close();
});

const texts = (threadId?: number) => world.telegram.botMessages(GROUP, threadId).map((m) => m.text);
const hasText = (pattern: RegExp, threadId?: number) => () => texts(threadId).some((t) => pattern.test(t));
const userTexts = (body: { messages: { role: string; content: unknown }[] }) => JSON.stringify(body.messages);

describe('Telegram end to end: groups and topics', () => {
  it('answers a mention in a group, and only the mention', async () => {
    world = await createAppWorld();
    await world.start();
    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: BOB }, 'chatting without the bot'));
    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: ANN }, '@switchboard_bot hello group'));
    await world.telegram.waitFor(hasText(/You said: .*hello group/), 15_000);
    expect(world.anthropic.requests).toHaveLength(1);
    expect(userTexts(world.anthropic.requests[0])).not.toContain('@switchboard_bot');
    expect(userTexts(world.anthropic.requests[0])).not.toContain('without the bot');
    expect(world.telegram.state.calls.filter((c) => c.outcome === 429)).toEqual([]);
  });

  it('streams a group reply by editing one message at the declared pace, ending with the exact text', async () => {
    world = await scaledWorld();
    const chunks = Array.from({ length: 12 }, (_, i) => `part ${i + 1}, `);
    world.anthropic.enqueue({ text: [...chunks, 'done.'], chunkDelayMs: 100 });
    world.telegram.pushUpdate(
      messageUpdate({ chatId: GROUP, user: ANN }, '@switchboard_bot count to twelve'),
    );
    const full = `${chunks.join('')}done.`;
    await world.telegram.waitFor(() => texts().includes(full), 15_000);
    const edits = world.telegram.state.calls.filter(
      (c) => c.method === 'editMessageText' && c.outcome === 'ok',
    );
    expect(edits.length).toBeGreaterThanOrEqual(2);
    const gaps = edits.slice(1).map((c, i) => c.at - (edits[i]?.at ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(250);
    expect(texts()).toEqual([full]);
    expect(world.telegram.draftsIn(GROUP)).toEqual([]);
    expect(world.telegram.state.calls.filter((c) => c.outcome === 429)).toEqual([]);
  });

  it('keeps two forum topics as two sessions, each answered in its topic', async () => {
    world = await scaledWorld();
    world.telegram.pushUpdate(
      messageUpdate({ chatId: GROUP, user: ANN, threadId: 3 }, '@switchboard_bot alpha in three'),
    );
    world.telegram.pushUpdate(
      messageUpdate({ chatId: GROUP, user: BOB, threadId: 4 }, '@switchboard_bot beta in four'),
    );
    await world.telegram.waitFor(
      () => hasText(/alpha in three/, 3)() && hasText(/beta in four/, 4)(),
      15_000,
    );
    expect(texts(3).join()).not.toContain('beta');
    expect(texts(4).join()).not.toContain('alpha');

    world.telegram.pushUpdate(
      messageUpdate({ chatId: GROUP, user: ANN, threadId: 3 }, '@switchboard_bot gamma in three'),
    );
    await world.telegram.waitFor(hasText(/gamma in three/, 3), 15_000);
    const last = userTexts(world.anthropic.requests.at(-1));
    expect(last).toContain('alpha in three');
    expect(last).not.toContain('beta in four');
  });

  it('takes an approval only from the requester: someone else gets a refusal toast', async () => {
    world = await scaledWorld();
    world.anthropic.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'echo approved-run' } }] },
      { text: 'Ran it.' },
    );
    world.telegram.pushUpdate(messageUpdate({ chatId: GROUP, user: ANN }, '@switchboard_bot run the check'));
    const prompt = () =>
      world.telegram
        .botMessages(GROUP)
        .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => b.text === 'Allow'));
    await world.telegram.waitFor(() => prompt() !== undefined, 15_000);
    const message = prompt();
    const allow = message?.replyMarkup?.inline_keyboard.flat().find((b) => b.text === 'Allow') as {
      callback_data: string;
    };
    expect(Buffer.byteLength(allow.callback_data)).toBeLessThanOrEqual(64);

    world.telegram.pushUpdate(
      callbackUpdate({ chatId: GROUP, user: BOB }, message?.messageId ?? 0, allow.callback_data),
    );
    await world.telegram.waitFor(() => world.telegram.callsTo('answerCallbackQuery').length === 1, 10_000);
    expect(world.telegram.callsTo('answerCallbackQuery')[0]?.text).toBe(
      'Only Ann or an admin can answer this.',
    );

    world.telegram.pushUpdate(
      callbackUpdate({ chatId: GROUP, user: ANN }, message?.messageId ?? 0, allow.callback_data),
    );
    await world.telegram.waitFor(() => world.telegram.callsTo('answerCallbackQuery').length === 2, 10_000);
    expect(world.telegram.callsTo('answerCallbackQuery')[1]?.text).toBe('Allowed.');
    await world.telegram.waitFor(hasText(/Ran it\./), 20_000);
    expect(world.telegram.state.calls.filter((c) => c.outcome === 429)).toEqual([]);
    await world.telegram.waitFor(
      () => /Allowed by Ann/.test(world.telegram.state.message(GROUP, message?.messageId ?? 0)?.text ?? ''),
      15_000,
    );
    expect(JSON.stringify(world.anthropic.requests.at(-1).messages)).toContain('approved-run');
    for (const cb of world.telegram.state.callbacks.values()) expect(cb.answered).toBeDefined();
  });
});
