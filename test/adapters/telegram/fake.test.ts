/**
 * The fake Bot API enforces Telegram's rules, so the adapter's tests mean
 * something: these check the fake itself through the real grammy client.
 */
import { readFile } from 'node:fs/promises';
import { Bot, GrammyError } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeTelegram,
  messageUpdate,
  parseMarkdownV2,
  parseTelegramHtml,
  SlidingWindow,
  startFakeTelegram,
} from '../../fakes/telegram/index.js';

let fake: FakeTelegram;
let api: Bot['api'];

async function failure(p: Promise<unknown>): Promise<GrammyError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GrammyError);
  return err as GrammyError;
}

beforeEach(async () => {
  fake = await startFakeTelegram({
    limits: {
      private: { count: 3, windowMs: 1000 },
      perMessage: { count: 2, windowMs: 1000 },
      retryAfter: 1,
    },
  });
  api = new Bot(fake.token, { client: { apiRoot: fake.url } }).api;
});
afterEach(() => fake.close());

describe('fake Telegram Bot API', () => {
  it('counts the 4096 characters after HTML entity parsing', async () => {
    const visible = 'x'.repeat(4096);
    await api.sendMessage(1, `<b>${visible}</b>`, { parse_mode: 'HTML' });
    const err = await failure(api.sendMessage(1, `${visible}y`));
    expect(err.description).toBe('Bad Request: message is too long');
    expect(fake.botMessages(1)[0]?.text).toBe(visible);
  });

  it('rejects malformed HTML and MarkdownV2 with "can\'t parse entities"', async () => {
    const html = await failure(api.sendMessage(1, '<b>bold', { parse_mode: 'HTML' }));
    expect(html.description).toMatch(/^Bad Request: can't parse entities: Can't find end tag/);
    const tag = await failure(api.sendMessage(1, 'a < b <c>', { parse_mode: 'HTML' }));
    expect(tag.description).toMatch(/can't parse entities/);
    const md = await failure(api.sendMessage(1, 'price 1.5!', { parse_mode: 'MarkdownV2' }));
    expect(md.description).toMatch(/can't parse entities: Character '\.' is reserved/);
    expect(parseMarkdownV2('*bold* \\_x\\_ `a.b`')).toBe('bold _x_ a.b');
    expect(parseTelegramHtml('a &lt; <i>b</i> &amp; c')).toBe('a < b & c');
  });

  it('answers "message is not modified" for an identical edit', async () => {
    const sent = await api.sendMessage(1, 'hello');
    await api.editMessageText(1, sent.message_id, 'hello again');
    const err = await failure(api.editMessageText(1, sent.message_id, 'hello again'));
    expect(err.description).toMatch(/message is not modified/);
    expect(fake.botMessages(1)[0]?.history).toEqual(['hello', 'hello again']);
  });

  it('limits callback_data to 64 bytes', async () => {
    const keyboard = (data: string) => ({
      reply_markup: { inline_keyboard: [[{ text: 'ok', callback_data: data }]] },
    });
    await api.sendMessage(1, 'fits', keyboard('é'.repeat(32)));
    const err = await failure(api.sendMessage(1, 'too long', keyboard('é'.repeat(33))));
    expect(err.description).toBe('Bad Request: BUTTON_DATA_INVALID');
  });

  it('answers 429 with retry_after past the per-chat limit', async () => {
    for (let i = 0; i < 3; i++) await api.sendMessage(5, `m${i}`);
    const err = await failure(api.sendMessage(5, 'one too many'));
    expect(err.error_code).toBe(429);
    expect(err.parameters.retry_after).toBe(1);
    expect(fake.rateLimited).toBe(1);
    await api.sendMessage(6, 'another chat is not limited');
  });

  it('answers 429 for a message edited (or a draft updated) too often', async () => {
    const sent = await api.sendMessage(7, 'v1');
    await api.editMessageText(7, sent.message_id, 'v2');
    await api.editMessageText(7, sent.message_id, 'v3');
    expect((await failure(api.editMessageText(7, sent.message_id, 'v4'))).error_code).toBe(429);
    // Raw calls, as the adapter makes them: grammY's typed sendMessageDraft is newer than the peer range's floor.
    await api.raw.sendMessageDraft({ chat_id: 8, draft_id: 1, text: 'a' });
    await api.raw.sendMessageDraft({ chat_id: 8, draft_id: 1, text: 'ab' });
    expect(
      (await failure(api.raw.sendMessageDraft({ chat_id: 8, draft_id: 1, text: 'abc' }))).error_code,
    ).toBe(429);
    await api.raw.sendMessageDraft({ chat_id: 8, draft_id: 2, text: 'another draft' });
  });

  it('forgives a few ms of arrival jitter, not more', () => {
    const window = new SlidingWindow({ count: 1, windowMs: 1000 });
    expect(window.take('c', 0).ok).toBe(true);
    expect(window.take('c', 985).ok).toBe(true);
    expect(window.take('c', 1500).ok).toBe(false);
    expect(window.take('c', 1970).ok).toBe(true);
  });

  it('answers 404 for rich methods when rich messages are off, and serves them otherwise', async () => {
    await api.raw.sendRichMessage({ chat_id: 1, rich_message: { markdown: '**hi**' } });
    fake.rich = false;
    const err = await failure(api.raw.sendRichMessage({ chat_id: 1, rich_message: { markdown: '**hi**' } }));
    expect(err.error_code).toBe(404);
  });

  it('answers createForumTopic as the recorded exchange does, and refuses as Telegram does', async () => {
    const recorded = JSON.parse(
      await readFile(
        new URL('../../fixtures/telegram-recorded/create-forum-topic-base.json', import.meta.url),
        'utf8',
      ),
    ) as { req_body: { json: { chat_id: number; name: string } }; rep_body: { result: object } };
    const { chat_id, name } = recorded.req_body.json;
    expect((await failure(api.createForumTopic(chat_id, name))).description).toBe(
      'Bad Request: the chat is not a forum',
    );
    fake.state.forums.set(chat_id, { canManageTopics: false });
    expect((await failure(api.createForumTopic(chat_id, name))).description).toMatch(/not enough rights/);
    fake.state.forums.set(chat_id, { canManageTopics: true });
    const topic = await api.createForumTopic(chat_id, name);
    expect(Object.keys(topic).sort()).toEqual(Object.keys(recorded.rep_body.result).sort());
    expect(topic).toMatchObject({ name, message_thread_id: expect.any(Number) });
    expect([0x6fb9f0, 0xffd67e, 0xcb86db, 0x8eee98, 0xff93b2, 0xfb6f5f]).toContain(topic.icon_color);
    expect((await failure(api.createForumTopic(chat_id, ''))).description).toBe(
      'Bad Request: TOPIC_TITLE_EMPTY',
    );
    await failure(api.createForumTopic(chat_id, 'x'.repeat(129)));
    expect((await api.createForumTopic(chat_id, '🧵'.repeat(128))).name).toBe('🧵'.repeat(128));
  });

  it('holds getUpdates open until an update arrives, and forgets a client that left', async () => {
    const first = api.getUpdates({ timeout: 30 });
    await fake.waitFor(() => fake.callsTo('getUpdates').length === 1);
    const id = fake.pushUpdate(messageUpdate({ chatId: 1, user: { id: 1 } }, 'hi'));
    const updates = await first;
    expect(updates.map((u) => u.update_id)).toEqual([id]);

    const controller = new AbortController();
    const abandoned = api
      .getUpdates({ offset: id + 1, timeout: 30 }, controller.signal as Parameters<typeof api.getUpdates>[1])
      .catch((e: unknown) => e);
    await fake.waitFor(() => fake.callsTo('getUpdates').length === 2);
    controller.abort();
    await abandoned;
    const next = fake.pushUpdate(messageUpdate({ chatId: 1, user: { id: 1 } }, 'again'));
    expect((await api.getUpdates({ offset: id + 1, timeout: 30 })).map((u) => u.update_id)).toEqual([next]);
  });

  it('delivers stopped_message_generation only when asked for', async () => {
    fake.pushUpdate({
      stopped_message_generation: { chat: { id: 1, type: 'private', first_name: 'A' }, draft_id: 3 },
    });
    expect(await api.getUpdates({ timeout: 0 })).toEqual([]);
    const updates = await api.getUpdates({
      timeout: 0,
      allowed_updates: ['message', 'stopped_message_generation'],
    });
    expect(updates[0]?.stopped_message_generation?.draft_id).toBe(3);
  });

  it('injects faults: 5xx and slow calls', async () => {
    fake.fault({ method: 'sendMessage', kind: 'server-error', times: 1 });
    const err = await failure(api.sendMessage(1, 'x'));
    expect(err.error_code).toBe(502);
    await api.sendMessage(1, 'y');
    expect(fake.botMessages(1).map((m) => m.text)).toEqual(['y']);
  });

  it('rejects a wrong token with 401', async () => {
    const wrong = new Bot('999:wrong-token-xxxxxxxx', { client: { apiRoot: fake.url } }).api;
    const err = await failure(wrong.getMe());
    expect(err.error_code).toBe(401);
  });
});
