/**
 * End to end: switchboard started as `npm start` starts it, the real grammy
 * bot polling the fake Bot API, the real core, sessions and stores, and the
 * fake Anthropic API. Telegram's real paces are used (1.1 s per private chat),
 * so these tests take a few seconds each; they wait for events, never sleep.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config/index.js';
import { startSwitchboard } from '../../../src/app.js';
import {
  callbackUpdate,
  editUpdate,
  messageUpdate,
  stopGenerationUpdate,
} from '../../fakes/telegram/index.js';
import { ANN, API_KEY, type AppWorld, createAppWorld } from './app-harness.js';
import { captureLogger } from './helpers.js';

let world: AppWorld;
const dm = { chatId: 11, user: ANN };

afterEach(async () => {
  await world?.close();
});

const texts = (chatId: number, threadId?: number) =>
  world.telegram.botMessages(chatId, threadId).map((m) => m.text);
const hasText = (chatId: number, pattern: RegExp, threadId?: number) => () =>
  texts(chatId, threadId).some((t) => pattern.test(t));
const no429 = () => world.telegram.state.calls.filter((c) => c.outcome === 429);

describe('Telegram end to end: private chats', () => {
  it('streams a private reply as drafts and delivers the exact final text with zero 429s', async () => {
    world = await createAppWorld();
    const app = await world.start();
    const chunks = [
      'The answer ',
      'has three parts. ',
      'First, the plan. ',
      'Second, the work. ',
      'Third, the check.',
    ];
    world.anthropic.enqueue({ text: chunks, chunkDelayMs: 500 });
    world.telegram.pushUpdate(messageUpdate(dm, 'explain the plan'));
    const full = chunks.join('');
    await world.telegram.waitFor(hasText(11, new RegExp(`^${full.replace(/\./g, '\\.')}$`)), 15_000);

    const drafts = world.telegram.draftsIn(11);
    expect(drafts).toHaveLength(1);
    const shown = drafts[0]?.texts.filter((t) => t !== '') ?? [];
    expect(shown.length).toBeGreaterThanOrEqual(1);
    for (const t of shown) expect(full.startsWith(t.trim())).toBe(true);
    expect(drafts[0]?.canStop).toBe(true);
    expect(texts(11)).toEqual([full]);
    expect(no429()).toEqual([]);
    expect(world.telegram.state.chatActions.some((a) => a.chatId === 11 && a.action === 'typing')).toBe(true);
    expect(app.lines.join('\n')).not.toContain(world.telegram.token);
    expect(app.lines.join('\n')).not.toContain(API_KEY);
  });

  it('turns the draft into a real message before an approval prompt, then finishes after Allow', async () => {
    world = await createAppWorld();
    await world.start();
    world.anthropic.enqueue(
      {
        text: 'Let me check the files.',
        toolUse: [{ name: 'Bash', input: { command: 'echo private-run' } }],
      },
      { text: 'All checked.' },
    );
    world.telegram.pushUpdate(messageUpdate(dm, 'check the files'));
    const prompt = () =>
      world.telegram
        .botMessages(11)
        .find((m) => m.replyMarkup?.inline_keyboard.flat().some((b) => b.text === 'Allow'));
    await world.telegram.waitFor(() => prompt() !== undefined, 15_000);
    const order = texts(11);
    expect(order.indexOf('Let me check the files.')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('Let me check the files.')).toBeLessThan(order.indexOf(prompt()?.text ?? '?'));
    const allow = prompt()
      ?.replyMarkup?.inline_keyboard.flat()
      .find((b) => b.text === 'Allow') as { callback_data: string };
    world.telegram.pushUpdate(callbackUpdate(dm, prompt()?.messageId ?? 0, allow.callback_data));
    await world.telegram.waitFor(hasText(11, /^All checked\.$/), 15_000);
    expect(world.telegram.callsTo('answerCallbackQuery')[0]?.text).toBe('Allowed.');
    expect(JSON.stringify(world.anthropic.requests.at(-1).messages)).toContain('private-run');
    expect(no429()).toEqual([]);
  });

  it('/stop during a turn aborts the model stream and says so', async () => {
    world = await createAppWorld();
    await world.start();
    let release: () => void = () => undefined;
    world.anthropic.enqueue({ text: ['Working on it'], release: new Promise<void>((r) => (release = r)) });
    world.telegram.pushUpdate(messageUpdate(dm, 'do a long job'));
    await world.anthropic.waitFor(() => world.anthropic.log[0]?.chunksSent === 1);
    world.telegram.pushUpdate(messageUpdate(dm, '/stop'));
    await world.telegram.waitFor(hasText(11, /Stopped the current reply/), 10_000);
    await world.anthropic.waitFor(() => world.anthropic.log[0]?.closedEarly === true);
    release();
    await world.telegram.waitFor(hasText(11, /Working on it/), 10_000);
  });

  it("Telegram's own draft stop button aborts the turn", async () => {
    world = await createAppWorld();
    await world.start();
    let release: () => void = () => undefined;
    world.anthropic.enqueue({ text: ['Partial answer'], release: new Promise<void>((r) => (release = r)) });
    world.telegram.pushUpdate(messageUpdate(dm, 'write a novel'));
    await world.telegram.waitFor(
      () => world.telegram.draftsIn(11).some((d) => d.texts.some((t) => t.includes('Partial answer'))),
      10_000,
    );
    const draftId = world.telegram.draftsIn(11)[0]?.draftId ?? 0;
    world.telegram.pushUpdate(stopGenerationUpdate(dm, draftId));
    await world.anthropic.waitFor(() => world.anthropic.log[0]?.closedEarly === true);
    release();
    await world.telegram.waitFor(hasText(11, /Partial answer/), 10_000);
  });

  it('an edit of the message that started the running turn aborts it and runs the new text', async () => {
    world = await createAppWorld();
    await world.start();
    let release: () => void = () => undefined;
    world.anthropic.enqueue({ text: ['Roses are'], release: new Promise<void>((r) => (release = r)) });
    const original = messageUpdate(dm, 'wirte a poem');
    world.telegram.pushUpdate(original);
    await world.anthropic.waitFor(() => world.anthropic.log[0]?.chunksSent === 1);
    const messageId = (original.message as { message_id: number }).message_id;
    world.telegram.pushUpdate(editUpdate(dm, messageId, 'write a poem'));
    await world.anthropic.waitFor(() => world.anthropic.log[0]?.closedEarly === true);
    release();
    await world.telegram.waitFor(hasText(11, /You said: .*write a poem/), 10_000);
    expect(texts(11).some((t) => /You said: .*wirte/.test(t))).toBe(false);
  });

  it('continues the chat’s session after a restart over the same data directory', async () => {
    world = await createAppWorld();
    const first = await world.start();
    world.telegram.pushUpdate(messageUpdate(dm, 'remember the word kiwi'));
    await world.telegram.waitFor(hasText(11, /You said: .*kiwi/), 10_000);
    await first.stop();

    await world.start();
    world.telegram.pushUpdate(messageUpdate(dm, 'what was the word?'));
    await world.telegram.waitFor(hasText(11, /You said: .*what was the word/), 10_000);
    const last = world.anthropic.requests.at(-1);
    expect(JSON.stringify(last.messages)).toContain('remember the word kiwi');
    expect(world.anthropic.requests.filter((r) => JSON.stringify(r.messages).includes('kiwi'))).toHaveLength(
      2,
    );
  });

  it('start-up stops with a clear message when Telegram rejects the token', async () => {
    world = await createAppWorld();
    const env = world.env({ TELEGRAM_BOT_TOKEN: '42:definitely-not-valid' });
    const { logger, lines } = captureLogger();
    const err = await startSwitchboard(loadConfig({ env, argv: [], cwd: world.root }), { logger }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(
      'TELEGRAM_BOT_TOKEN was rejected by Telegram (401): check the token from @BotFather',
    );
    expect(lines.join('\n')).not.toContain('definitely-not-valid');
  });
});

describe('Telegram end to end: classic messages (a server without rich messages)', () => {
  it('falls back from rich to classic mid-run when a rich method starts answering 404', async () => {
    world = await createAppWorld();
    await world.start();
    world.telegram.rich = false;
    world.anthropic.enqueue({ text: ['A reply that ', 'must arrive whole.'], chunkDelayMs: 300 });
    world.telegram.pushUpdate(messageUpdate(dm, 'hello after the downgrade'));
    await world.telegram.waitFor(hasText(11, /^A reply that must arrive whole\.$/), 15_000);
    expect(
      world.telegram.state.calls.some((c) => c.method === 'sendRichMessageDraft' && c.outcome === 404),
    ).toBe(true);
    expect(world.telegram.botMessages(11).map((m) => [m.text, m.rich])).toEqual([
      ['A reply that must arrive whole.', false],
    ]);
    expect(no429()).toEqual([]);
  });

  it('splits a reply over 4096 characters into classic messages, in order', async () => {
    world = await createAppWorld({ rich: false });
    await world.start();
    const paragraphs = Array.from(
      { length: 30 },
      (_, i) => `Paragraph ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(11).trim()}.`,
    );
    const reply = paragraphs.join('\n\n');
    expect(reply.length).toBeGreaterThan(8192);
    world.anthropic.enqueue({ text: reply });
    world.telegram.pushUpdate(messageUpdate(dm, 'a long essay please'));
    await world.telegram.waitFor(hasText(11, /Paragraph 30:/), 20_000);
    await world.telegram.waitFor(
      () =>
        texts(11)
          .join('\n')
          .includes(paragraphs.at(-1) ?? '?'),
      10_000,
    );

    const parts = texts(11);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4096);
    expect(parts.join('\n\n').replace(/\s+/g, ' ').trim()).toBe(reply.replace(/\s+/g, ' ').trim());
    expect(world.telegram.botMessages(11).every((m) => !m.rich)).toBe(true);
    expect(no429()).toEqual([]);
  });

  it('resends the same text plain when Telegram cannot parse its entities', async () => {
    world = await createAppWorld({ rich: false });
    await world.start();
    world.telegram.fault({
      method: 'sendMessage',
      kind: 'error',
      code: 400,
      description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 4',
      times: 1,
    });
    world.anthropic.enqueue({ text: 'Use **bold** and `code` here.' });
    world.telegram.pushUpdate(messageUpdate(dm, 'format something'));
    await world.telegram.waitFor(hasText(11, /Use .*bold.* and .*code.* here/), 10_000);
    const [message] = world.telegram.botMessages(11);
    expect(message?.parseMode).toBeUndefined();
    expect(message?.text).toMatch(/^Use \**bold\** and `?code`? here\.$/);
  });
});
