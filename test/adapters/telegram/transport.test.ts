/**
 * Start-up and transports: a rejected token, polling that survives
 * getUpdates failures, restarts that neither lose nor repeat updates, and
 * webhook mode with Telegram's secret-token header.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter, type TelegramAdapter } from '../../../adapters/telegram/index.js';
import { telegramHtml, telegramMarkdown } from '../../../adapters/telegram/markdown.js';
import { SwitchboardError } from '../../../src/errors.js';
import {
  type FakeTelegram,
  messageUpdate,
  startFakeTelegram,
  stopGenerationUpdate,
} from '../../fakes/telegram/index.js';
import { captureLogger, EventLog, freePort } from './helpers.js';

let fake: FakeTelegram;
let adapter: TelegramAdapter | undefined;
const dm = { chatId: 11, user: { id: 11, first_name: 'Ann' } };

beforeEach(async () => {
  fake = await startFakeTelegram();
});
afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
});

describe('Telegram start-up and transports', () => {
  it('rejects start with a clear message, without the token, when Telegram answers 401', async () => {
    const token = '42:this-token-is-wrong';
    adapter = createTelegramAdapter({ token, apiUrl: fake.url });
    const err = await adapter.start(new EventLog().sink).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SwitchboardError);
    expect((err as SwitchboardError).code).toBe('PLATFORM_AUTH');
    expect((err as Error).message).toBe(
      'TELEGRAM_BOT_TOKEN was rejected by Telegram (401): check the token from @BotFather',
    );
    expect(JSON.stringify(err)).not.toContain('this-token-is-wrong');
  });

  it('finds out at start whether the server has rich messages and drafts, sending nothing to anyone', async () => {
    fake.rich = false;
    fake.drafts = false;
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url });
    expect(adapter.capabilities('telegram:11')).toMatchObject({
      dialect: telegramMarkdown,
      nativeStream: true,
    });
    await adapter.start(new EventLog().sink);
    expect(adapter.features).toEqual({ rich: false, drafts: false });
    expect(adapter.capabilities('telegram:11')).toMatchObject({
      dialect: telegramHtml,
      maxMessageLength: 4096,
      nativeStream: false,
    });
    expect(fake.state.messages.size).toBe(0);
    expect(fake.state.drafts.size).toBe(0);
  });

  it('keeps rich messages and drafts where the server has them', async () => {
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url });
    await adapter.start(new EventLog().sink);
    expect(adapter.features).toEqual({ rich: true, drafts: true });
    expect(fake.state.calls.filter((c) => c.method === 'sendRichMessage').map((c) => c.description)).toEqual([
      'Bad Request: chat not found',
    ]);
    expect(fake.state.messages.size).toBe(0);
  });

  it('logs getUpdates failures and keeps polling', async () => {
    const { logger, lines } = captureLogger();
    fake.fault({ method: 'getUpdates', kind: 'server-error', times: 2 });
    const log = new EventLog();
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url, logger });
    await adapter.start(log.sink);
    fake.pushUpdate(messageUpdate(dm, 'still there?'));
    await log.waitFor((e) => e.type === 'message');
    expect(lines.filter((l) => l.includes('getUpdates failed'))).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(fake.token);
  });

  it('confirms handled updates on stop, so a restart neither repeats nor loses them', async () => {
    const first = new EventLog();
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url });
    await adapter.start(first.sink);
    fake.pushUpdate(messageUpdate(dm, 'before restart'));
    await first.waitFor((e) => e.type === 'message');
    await adapter.stop();
    fake.pushUpdate(messageUpdate(dm, 'while down'));

    const second = new EventLog();
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url });
    await adapter.start(second.sink);
    await second.waitFor((e) => e.type === 'message');
    fake.pushUpdate(messageUpdate(dm, 'after restart'));
    await second.waitFor((e) => e.type === 'message' && e.text === 'after restart');
    expect(second.events.map((e) => (e.type === 'message' ? e.text : e.type))).toEqual([
      'while down',
      'after restart',
    ]);
  });

  it('webhook mode: registers the secret and update types, accepts the right secret, answers 401 to a wrong one', async () => {
    const port = await freePort();
    const log = new EventLog();
    adapter = createTelegramAdapter({
      token: fake.token,
      apiUrl: fake.url,
      webhook: { url: `http://127.0.0.1:${port}/telegram`, secret: 'hook_secret-1', port, host: '127.0.0.1' },
    });
    await adapter.start(log.sink);
    expect(adapter.webhookPort).toBe(port);
    expect(fake.state.webhook).toEqual({
      url: `http://127.0.0.1:${port}/telegram`,
      secret: 'hook_secret-1',
      allowedUpdates: ['message', 'edited_message', 'callback_query', 'stopped_message_generation'],
    });
    expect(fake.callsTo('getUpdates')).toHaveLength(0);

    expect(await fake.deliverWebhook(messageUpdate(dm, 'forged'), 'wrong-secret')).toBe(401);
    expect(await fake.deliverWebhook(messageUpdate(dm, 'forged too'))).toBe(401);
    expect(await fake.deliverWebhook(messageUpdate(dm, 'genuine'), 'hook_secret-1')).toBe(200);
    fake.pushUpdate(stopGenerationUpdate(dm, 4));
    await log.waitFor((e) => e.type === 'stop');
    expect(log.events.map((e) => (e.type === 'message' ? e.text : e.type))).toEqual(['genuine', 'stop']);
  });
});
