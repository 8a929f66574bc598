/**
 * Inbound updates through the real grammy runner (long polling) against the
 * fake Bot API: which messages reach the core, as which events and chat keys.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter, type TelegramAdapter } from '../../../adapters/telegram/index.js';
import type {
  ButtonEvent,
  ChatEvent,
  CommandEvent,
  MessageEvent,
} from '../../../src/bot/adapter-contract.js';
import {
  callbackUpdate,
  documentUpdate,
  editUpdate,
  type FakeTelegram,
  mediaUpdate,
  messageUpdate,
  photoUpdate,
  startFakeTelegram,
  stopGenerationUpdate,
  textMessage,
} from '../../fakes/telegram/index.js';
import { EventLog } from './helpers.js';

let fake: FakeTelegram;
let adapter: TelegramAdapter;
let log: EventLog;
const ann = { id: 11, first_name: 'Ann' };
const bob = { id: 22, first_name: 'Bob', username: 'bob' };
const dm = { chatId: 11, user: ann };
const group = { chatId: -100500, user: ann };
const isType =
  <T extends ChatEvent['type']>(type: T) =>
  (e: ChatEvent): e is Extract<ChatEvent, { type: T }> =>
    e.type === type;

beforeEach(async () => {
  fake = await startFakeTelegram();
  log = new EventLog();
  adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url, ackDeadlineMs: 300 });
  await adapter.start(log.sink);
});
afterEach(async () => {
  await adapter.stop();
  await fake.close();
});

describe('Telegram inbound', () => {
  it('registers the commands and asks for exactly the update types it handles', async () => {
    expect(fake.state.commands.map((c) => c.command)).toEqual([
      'new',
      'compact',
      'rename',
      'stop',
      'status',
      'cost',
      'budget',
      'rules',
      'tools',
      'mcp',
      'sessions',
      'resume',
      'fork',
      'mode',
      'schedule',
      'schedules',
      'unschedule',
      'timezone',
      'btw',
      'bg',
      'busy',
      'web',
      'help',
    ]);
    await fake.waitFor(() => fake.callsTo('getUpdates').length > 0);
    expect(fake.callsTo('getUpdates')[0]?.allowed_updates).toEqual([
      'message',
      'edited_message',
      'callback_query',
      'stopped_message_generation',
    ]);
  });

  it('passes a private message with its author and delivery id', async () => {
    const id = fake.pushUpdate(messageUpdate(dm, 'hello agent'));
    const event = await log.waitFor(isType('message'));
    expect(event).toMatchObject({
      chat: 'telegram:11',
      text: 'hello agent',
      user: { id: '11', name: 'Ann' },
      deliveryId: String(id),
    });
  });

  it('in groups answers only mentions, replies to the bot and commands, with the mention removed', async () => {
    fake.pushUpdate(messageUpdate(group, 'people talking among themselves'));
    fake.pushUpdate(messageUpdate(group, '/status@other_bot'));
    fake.pushUpdate(messageUpdate(group, '@switchboard_bot what is in README.md?'));
    const mention = await log.waitFor(isType('message'));
    expect(mention).toMatchObject({ chat: 'telegram:-100500', text: 'what is in README.md?' });

    const botMessage = { ...textMessage(group, 'earlier answer'), from: fake.bot };
    fake.pushUpdate(messageUpdate({ ...group, user: bob }, 'and then?', { replyTo: botMessage }));
    const reply = await log.waitFor((e): e is MessageEvent => e.type === 'message' && e.text === 'and then?');
    expect(reply.replyTo).toMatchObject({ fromBot: true, text: 'earlier answer' });
    expect(reply.user).toEqual({ id: '22', name: 'Bob' });

    fake.pushUpdate(messageUpdate(group, '/compact@switchboard_bot keep the names'));
    const command = await log.waitFor(isType('command'));
    expect(command).toMatchObject({ name: 'compact', args: 'keep the names', chat: 'telegram:-100500' });
    expect(log.events.filter((e) => e.type === 'message')).toHaveLength(2);
  });

  it('gives each forum topic its own chat key', async () => {
    fake.pushUpdate(messageUpdate({ ...group, threadId: 3 }, '@switchboard_bot topic three'));
    fake.pushUpdate(messageUpdate({ ...group, threadId: 4 }, '@switchboard_bot topic four'));
    await log.waitFor((e) => e.type === 'message' && e.chat.endsWith(':4'));
    expect(log.events.map((e) => e.chat)).toEqual(['telegram:-100500:3', 'telegram:-100500:4']);
  });

  it('turns /start into help, and edits into edit events', async () => {
    fake.pushUpdate(messageUpdate(dm, '/start'));
    expect(await log.waitFor(isType('command'))).toMatchObject({ name: 'help', args: '' });
    const original = messageUpdate(dm, 'wirte a poem');
    fake.pushUpdate(original);
    const messageId = (original.message as { message_id: number }).message_id;
    fake.pushUpdate(editUpdate(dm, messageId, 'write a poem'));
    expect(await log.waitFor(isType('edit'))).toMatchObject({
      chat: 'telegram:11',
      text: 'write a poem',
      messageId: String(messageId),
    });
  });

  it('answers a button press through the responder exactly once', async () => {
    fake.pushUpdate(callbackUpdate(dm, 5, 'a:k3j9x2'));
    const press = await log.waitFor((e): e is ButtonEvent => e.type === 'button');
    expect(press).toMatchObject({
      chat: 'telegram:11',
      payload: 'a:k3j9x2',
      messageId: '5',
      user: { id: '11' },
    });
    await press.respond({ text: 'Allowed once', ephemeral: true });
    await press.respond({ text: 'ignored' });
    expect(fake.callsTo('answerCallbackQuery')).toEqual([
      { callback_query_id: expect.any(String), text: 'Allowed once' },
    ]);
  });

  it('answers a press with an error toast when the core fails, and after a deadline when it is silent', async () => {
    log.failWith = new Error('core exploded');
    fake.pushUpdate(callbackUpdate(dm, 5, 'a:1'));
    await fake.waitFor(() => fake.callsTo('answerCallbackQuery').length === 1);
    expect(fake.callsTo('answerCallbackQuery')[0]?.text).toMatch(/did not work/);
    log.failWith = undefined;
    fake.pushUpdate(callbackUpdate(dm, 6, 'a:2'));
    await fake.waitFor(() => fake.callsTo('answerCallbackQuery').length === 2);
    expect(fake.callsTo('answerCallbackQuery')[1]?.text).toBeUndefined();
  });

  it("turns Telegram's draft stop button into a stop event", async () => {
    fake.pushUpdate(stopGenerationUpdate(dm, 9));
    expect(await log.waitFor(isType('stop'))).toMatchObject({
      chat: 'telegram:11',
      user: { id: '11', name: 'Ann' },
    });
  });

  it('downloads the largest photo size for the model, and tags other media', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const fileId = fake.addFile(jpeg, 'photos/p1.jpg');
    fake.pushUpdate(photoUpdate(dm, fileId, 'what is this?'));
    const photo = await log.waitFor(isType('message'));
    expect(photo.text).toBe('what is this?');
    expect(photo.attachments).toEqual([
      { kind: 'image', mediaType: 'image/jpeg', size: jpeg.length, bytes: jpeg },
    ]);
    expect(fake.callsTo('getFile')).toEqual([{ file_id: fileId }]);
    for (const kind of ['sticker', 'voice', 'document', 'video'] as const)
      fake.pushUpdate(mediaUpdate(dm, kind));
    await log.waitFor(() => log.events.length === 5);
    expect(log.events.slice(1).map((e) => (e as MessageEvent).attachments?.[0]?.kind)).toEqual([
      'sticker',
      'audio',
      'document',
      'video',
    ]);
  });

  it('marks a photo over the file limit too large, from its declared size, without fetching it', async () => {
    await adapter.stop();
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url, maxFileBytes: 4 });
    await adapter.start(log.sink);
    const fileId = fake.addFile(Buffer.alloc(5000), 'photos/big.jpg');
    fake.pushUpdate(photoUpdate(dm, fileId));
    const photo = await log.waitFor(isType('message'));
    expect(photo.attachments).toEqual([{ kind: 'image', size: 5000, problem: 'too-large', limitBytes: 4 }]);
    expect(fake.callsTo('getFile')).toEqual([]);
  });

  it('downloads a document with its caption: bytes, name, type and size', async () => {
    const csv = Buffer.from('a,b\n1,2\n');
    const fileId = fake.addFile(csv, 'documents/file_7.csv');
    fake.pushUpdate(
      documentUpdate(dm, fileId, {
        name: 'data.csv',
        mimeType: 'text/csv',
        size: csv.length,
        caption: 'sum it',
      }),
    );
    const message = await log.waitFor(isType('message'));
    expect(message.text).toBe('sum it');
    expect(message.attachments).toEqual([
      { kind: 'document', name: 'data.csv', mediaType: 'text/csv', size: csv.length, bytes: csv },
    ]);
  });

  it("a document over the Bot API's 20 MB that the update does not size is refused by getFile: too large", async () => {
    const fileId = fake.addFile(Buffer.alloc(21 * 1024 * 1024), 'documents/huge.bin');
    fake.pushUpdate(documentUpdate(dm, fileId, { name: 'huge.bin' }));
    const message = await log.waitFor(isType('message'));
    expect(message.attachments).toEqual([
      { kind: 'document', name: 'huge.bin', problem: 'too-large', limitBytes: 20 * 1024 * 1024 },
    ]);
  });

  it('gives up on a download that stalls and says it failed', async () => {
    await adapter.stop();
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url, downloadTimeoutMs: 300 });
    await adapter.start(log.sink);
    const fileId = fake.addFile(Buffer.alloc(64 * 1024, 1), 'documents/slow.txt', { stall: true });
    fake.pushUpdate(documentUpdate(dm, fileId, { name: 'slow.txt', mimeType: 'text/plain' }));
    const message = await log.waitFor(isType('message'));
    expect(message.attachments).toEqual([
      { kind: 'document', name: 'slow.txt', mediaType: 'text/plain', problem: 'download-failed' },
    ]);
  });

  it('lets /stop and button presses past a chat whose earlier update is still being accepted', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new EventLog();
    await adapter.stop();
    adapter = createTelegramAdapter({ token: fake.token, apiUrl: fake.url });
    await adapter.start(async (event) => {
      await slow.sink(event);
      if (event.type === 'message') await gate;
    });
    fake.pushUpdate(messageUpdate(dm, 'first'));
    await slow.waitFor(isType('message'));
    fake.pushUpdate(messageUpdate(dm, 'queued behind first'));
    fake.pushUpdate(messageUpdate(dm, '/stop'));
    fake.pushUpdate(callbackUpdate(dm, 5, 's:1'));
    await slow.waitFor(isType('button'));
    const stop = await slow.waitFor((e): e is CommandEvent => e.type === 'command' && e.name === 'stop');
    expect(stop.chat).toBe('telegram:11');
    expect(slow.events.map((e) => (e.type === 'message' ? e.text : e.type))).not.toContain(
      'queued behind first',
    );
    release();
    await slow.waitFor((e) => e.type === 'message' && e.text === 'queued behind first');
  });
});
