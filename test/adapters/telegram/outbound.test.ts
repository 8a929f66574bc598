/**
 * Render operations through the real grammy client against the fake Bot
 * API: rich and classic messages, error mapping, drafts, buttons, topics.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter, type TelegramAdapter } from '../../../adapters/telegram/index.js';
import { telegramHtml, telegramMarkdown } from '../../../adapters/telegram/markdown.js';
import { plain } from '../../../src/bot/format/dialect.js';
import { RateLimitError, SwitchboardError } from '../../../src/errors.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/telegram/index.js';

let fake: FakeTelegram;
let adapter: TelegramAdapter;
const html = (text: string) => ({ text, format: telegramHtml });
const md = (text: string) => ({ text, format: telegramMarkdown });

async function rejection(p: Promise<unknown>): Promise<SwitchboardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SwitchboardError);
  return err as SwitchboardError;
}

afterEach(() => fake.close());

describe('Telegram outbound, classic messages', () => {
  beforeEach(async () => {
    fake = await startFakeTelegram({
      rich: false,
      limits: { private: { count: 100, windowMs: 1000 }, perMessage: { count: 100, windowMs: 1000 } },
    });
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url, rich: false });
  });

  it('declares classic capabilities per chat: private drafts, group budget', () => {
    const dm = adapter.capabilities('telegram:42');
    expect(dm).toMatchObject({
      maxMessageLength: 4096,
      minEditIntervalMs: 1100,
      dialect: telegramHtml,
      nativeStream: true,
      buttonPayloadLimit: 64,
    });
    expect(dm.budget).toBeUndefined();
    const group = adapter.capabilities('telegram:-100123:7');
    expect(group).toMatchObject({
      minEditIntervalMs: 3000,
      budget: { count: 20, windowMs: 60_000 },
      nativeStream: false,
    });
    expect(adapter.globalBudget).toEqual({ count: 28, windowMs: 1000 });
  });

  it('sends HTML, treats "not modified" as success, and maps rejections to contract codes', async () => {
    const { messageId } = await adapter.send('telegram:42', html('<b>Hi</b> there'));
    expect(fake.botMessages(42)[0]).toMatchObject({ text: 'Hi there', parseMode: 'HTML' });
    await adapter.edit('telegram:42', messageId, html('<b>Hi</b> there'));
    expect((await rejection(adapter.edit('telegram:42', messageId, html('<b>broken')))).code).toBe(
      'FORMAT_REJECTED',
    );
    expect((await rejection(adapter.send('telegram:42', html('x'.repeat(4097))))).code).toBe(
      'MESSAGE_TOO_LONG',
    );
    expect((await rejection(adapter.edit('telegram:42', messageId, html('y'.repeat(4097))))).code).toBe(
      'MESSAGE_TOO_LONG',
    );
    expect((await rejection(adapter.edit('telegram:42', '999', html('gone')))).code).toBe('NOT_FOUND');
    await adapter.send('telegram:42', { text: '<b> is not a tag here', format: plain });
    expect(fake.botMessages(42)[1]?.text).toBe('<b> is not a tag here');
  });

  it("hands every 429 of the outbox's calls (edits, drafts, sends) to the core without retrying", async () => {
    const { messageId } = await adapter.send('telegram:42', html('one'));
    fake.fault({ method: 'editMessageText', kind: 'rate-limit', retryAfter: 2, times: 1 });
    const limited = await rejection(adapter.edit('telegram:42', messageId, html('two')));
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.retryAfterMs).toBe(2000);
    expect(fake.state.calls.filter((c) => c.method === 'editMessageText')).toHaveLength(1);

    fake.fault({ method: 'sendMessageDraft', kind: 'rate-limit', times: 1 });
    const stream = await adapter.startStream('telegram:42', {});
    expect((await rejection(adapter.updateStream(stream, html('partial')))).code).toBe('RATE_LIMITED');

    // A send too: the scheduler pauses the chat and sends again, instead of grammY sleeping on it.
    fake.fault({ method: 'sendMessage', kind: 'rate-limit', retryAfter: 1, times: 1 });
    const send = await rejection(adapter.send('telegram:42', html('final text')));
    expect(send).toBeInstanceOf(RateLimitError);
    expect(send).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 1000, scope: 'chat' });
    await adapter.send('telegram:42', html('final text'));
    expect(fake.state.calls.filter((c) => c.method === 'sendMessage').map((c) => c.outcome)).toEqual([
      'ok',
      429,
      'ok',
    ]);
  });

  it('streams a private reply as drafts with a stop button, then sends the real message', async () => {
    const stream = await adapter.startStream('telegram:42', {});
    await adapter.updateStream(stream, html(''));
    await adapter.updateStream(stream, html('Hel'));
    await adapter.updateStream(stream, html('Hello <i>world</i>'));
    const [draft] = fake.draftsIn(42);
    expect(draft).toMatchObject({
      canStop: true,
      active: true,
      texts: ['', 'Hel', 'Hello world'],
      draftId: Number(stream.id),
    });
    const sent = await adapter.finishStream(stream, html('Hello <i>world</i>!'));
    expect(fake.botMessages(42).map((m) => [String(m.messageId), m.text])).toEqual([
      [sent.messageId, 'Hello world!'],
    ]);
    expect(fake.draftsIn(42)[0]?.active).toBe(false);
    expect((await rejection(adapter.startStream('telegram:-100', {}))).code).toBe('STREAM_UNAVAILABLE');
  });

  it('puts buttons in callback_data, keeps them across edits, removes them on []', async () => {
    const buttons = [
      [
        { label: 'Allow', payload: 'a:k3j9x2' },
        { label: 'Deny', payload: 'd:k3j9x2' },
      ],
    ];
    const { messageId } = await adapter.send('telegram:42', { ...html('Run ls?'), buttons });
    const keyboard = () => fake.botMessages(42)[0]?.replyMarkup?.inline_keyboard;
    expect(keyboard()?.[0]?.map((b) => (b as { callback_data: string }).callback_data)).toEqual([
      'a:k3j9x2',
      'd:k3j9x2',
    ]);
    await adapter.edit('telegram:42', messageId, html('Run ls? (still asking)'));
    expect(keyboard()).toHaveLength(1);
    await adapter.edit('telegram:42', messageId, { ...html('Allowed by Ann'), buttons: [] });
    expect(keyboard()).toBeUndefined();
    const tooLong = await rejection(
      adapter.send('telegram:42', { ...html('x'), buttons: [[{ label: 'Big', payload: 'p'.repeat(65) }]] }),
    );
    expect(tooLong.message).toMatch(/65-byte payload.*1-64 bytes/);
  });

  it('sends into the forum topic of the chat key, typing included', async () => {
    await adapter.send('telegram:-1001:7', html('in topic 7'));
    await adapter.typing('telegram:-1001:7');
    expect(fake.botMessages(-1001, 7).map((m) => m.text)).toEqual(['in topic 7']);
    expect(fake.state.chatActions).toMatchObject([{ chatId: -1001, threadId: 7, action: 'typing' }]);
    const { messageId } = await adapter.send('telegram:-1001:7', html('bye'));
    await adapter.delete('telegram:-1001:7', messageId);
    expect(fake.botMessages(-1001, 7).map((m) => m.text)).toEqual(['in topic 7']);
  });
});

describe('Telegram outbound, rich messages', () => {
  beforeEach(async () => {
    fake = await startFakeTelegram({
      limits: { private: { count: 100, windowMs: 1000 }, perMessage: { count: 100, windowMs: 1000 } },
    });
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url });
  });

  it('sends, edits and drafts Markdown as rich messages up to 32,768 characters', async () => {
    expect(adapter.capabilities('telegram:42')).toMatchObject({
      maxMessageLength: 32_768,
      dialect: telegramMarkdown,
    });
    const long = `# Report\n\n${'word '.repeat(5000)}`;
    const { messageId } = await adapter.send('telegram:42', md(long));
    await adapter.edit('telegram:42', messageId, md(`${long}\n\n**done**`));
    const stream = await adapter.startStream('telegram:42', {});
    await adapter.updateStream(stream, md('**Thinking** about it'));
    expect(fake.callsTo('sendRichMessage')).toHaveLength(1);
    expect(fake.callsTo('editMessageText')[0]?.rich_message).toEqual({ markdown: `${long}\n\n**done**` });
    expect(fake.callsTo('sendRichMessageDraft')[0]).toMatchObject({
      rich_message: { markdown: '**Thinking** about it' },
      can_stop: true,
    });
    expect(fake.botMessages(42)[0]?.rich).toBe(true);
  });

  it('falls back to classic on a 404 for a rich send: CAPABILITY_CHANGED, then classic works', async () => {
    fake.rich = false;
    const changed = await rejection(adapter.send('telegram:42', md('**hi**')));
    expect(changed.code).toBe('CAPABILITY_CHANGED');
    expect(adapter.capabilities('telegram:42')).toMatchObject({
      maxMessageLength: 4096,
      dialect: telegramHtml,
    });
    await adapter.send('telegram:42', html('<b>hi</b>'));
    expect(fake.botMessages(42).map((m) => m.text)).toEqual(['hi']);
  });

  it('falls back to classic on a 404 for a rich draft too', async () => {
    fake.rich = false;
    const stream = await adapter.startStream('telegram:42', {});
    expect((await rejection(adapter.updateStream(stream, md('partial **text**')))).code).toBe(
      'CAPABILITY_CHANGED',
    );
    expect(adapter.features.rich).toBe(false);
    await adapter.updateStream(stream, html('partial <b>text</b>'));
    expect(fake.draftsIn(42)[0]?.texts).toEqual(['partial text']);
  });

  it('turns drafts off on a 404 for sendMessageDraft, so the core edits instead', async () => {
    fake.drafts = false;
    const stream = await adapter.startStream('telegram:42', {});
    expect((await rejection(adapter.updateStream(stream, md('')))).code).toBe('CAPABILITY_CHANGED');
    expect(adapter.capabilities('telegram:42').nativeStream).toBe(false);
  });

  it('sends plain text as escaped rich HTML so nothing in it is taken as markup', async () => {
    await adapter.send('telegram:42', { text: 'a <b> & **c**', format: plain });
    expect(fake.callsTo('sendRichMessage')[0]?.rich_message).toEqual({ html: 'a &lt;b&gt; &amp; **c**' });
    expect(fake.botMessages(42)[0]?.text).toBe('a <b> & **c**');
  });
});
