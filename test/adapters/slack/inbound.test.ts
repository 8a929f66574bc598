/**
 * Slack updates -> the core's events, through the real Bolt app on Socket
 * Mode against the fake Slack.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { slackMarkdown } from '../../../adapters/slack/markdown.js';
import type { CommandEvent, EditEvent, MessageEvent } from '../../../src/bot/adapter-contract.js';
import { type FakeSlack, startFakeSlack } from '../../fakes/slack/index.js';
import { type EventLog, startAdapter, stopAdapter } from './helpers.js';

let fake: FakeSlack;
let adapter: SlackAdapter | undefined;
let log: EventLog;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  fake.state.users.set('U2', 'Bob');
  ({ adapter, log } = await startAdapter(fake));
});

afterEach(async () => {
  await stopAdapter(fake, adapter);
  adapter = undefined;
  await fake.close();
});

const mention = (text: string) => `<@UBOT> ${text}`;

describe('Slack inbound', () => {
  it('connects over Socket Mode after checking the token', async () => {
    expect(fake.calls.map((c) => c.method)).toEqual(
      expect.arrayContaining(['auth.test', 'apps.connections.open']),
    );
    expect(adapter?.identity).toEqual({ userId: 'UBOT', botId: 'BBOT', teamId: 'T0FAKE' });
    expect(adapter?.capabilities('slack:C1:1.2')).toMatchObject({
      dialect: slackMarkdown,
      nativeStream: true,
    });
  });

  it('reconnects after Slack drops or recycles the connection and keeps delivering', async () => {
    await stopAdapter(fake, adapter);
    ({ adapter, log } = await startAdapter(fake, { socketPingTimeoutMs: 100 }));
    fake.socket.dropAll();
    await fake.socket.waitForDisconnect();
    await fake.socket.waitForConnection();
    fake.socket.sendDisconnect();
    await fake.until(() => fake.callsOf('apps.connections.open').length >= 4, 5000, 'second reconnect');
    await fake.socket.waitForConnection();
    const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'still there?' });
    expect((await log.next<MessageEvent>()).chat).toBe(`slack:D1:${ts}`);
    expect(fake.socket.connectionCount).toBeGreaterThanOrEqual(4);
  });

  it('a channel mention starts a session in that message thread, delivered once', async () => {
    const { ts, deliveries } = await fake.userMessage({
      channel: 'C1',
      user: 'U1',
      text: mention('hello &lt;there&gt;'),
    });
    expect(deliveries).toHaveLength(2); // message + app_mention, as Slack sends them
    const event = await log.next<MessageEvent>((e) => e.type === 'message');
    expect(event).toMatchObject({
      type: 'message',
      chat: `slack:C1:${ts}`,
      text: 'hello <there>',
      messageId: ts,
      user: { id: 'U1', name: 'Alice' },
    });
    expect(event.deliveryId).toMatch(/^Ev/);
    // Both acks came back quickly: Slack redelivers what is not acked within 3 s.
    for (const d of deliveries) expect(d.ack?.latencyMs).toBeLessThan(3000);
    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'later, unrelated' });
    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'more', threadTs: ts });
    await log.next((e) => e.type === 'message' && 'text' in e && e.text === 'more');
    expect(log.events.filter((e) => e.type === 'message').map((e) => (e as MessageEvent).text)).toEqual([
      'hello <there>',
      'more',
    ]);
  });

  it('only the app_mention event (no message scopes) is enough', async () => {
    const { ts } = await fake.userMessage({
      channel: 'C1',
      user: 'U1',
      text: mention('hi'),
      only: 'app_mention',
    });
    await log.next((e) => e.chat === `slack:C1:${ts}`);
  });

  it('a follow-up in the thread needs no mention; unknown threads are checked and ignored', async () => {
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: mention('start') });
    await log.next();
    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'follow-up', threadTs: ts });
    const follow = await log.next<MessageEvent>((e) => e.type === 'message' && e.text === 'follow-up');
    expect(follow.chat).toBe(`slack:C1:${ts}`);
    expect(follow.user.name).toBe('Bob');

    // A thread the bot is not in: the adapter asks Slack once, then remembers.
    const other = await fake.userMessage({ channel: 'C1', user: 'U1', text: 'people talking' });
    // Two replies before Slack has answered the first lookup: still one lookup.
    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'reply 1', threadTs: other.ts });
    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'reply 2', threadTs: other.ts });
    await fake.until(() => fake.calls.some((c) => c.method === 'conversations.replies'));
    await fake.userMessage({ channel: 'C1', user: 'U2', text: 'reply 3', threadTs: other.ts });
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'marker', threadTs: ts });
    await log.next((e) => e.type === 'message' && (e as MessageEvent).text === 'marker');
    expect(log.events.some((e) => e.chat === `slack:C1:${other.ts}`)).toBe(false);
    expect(fake.calls.filter((c) => c.method === 'conversations.replies')).toHaveLength(1);
  });

  it('a thread the bot replied in before (e.g. before a restart) continues without mention', async () => {
    const parent = fake.state.nextTs();
    fake.state.add({ channel: 'C1', ts: parent, user: 'U1', text: 'old question' });
    fake.state.add({
      channel: 'C1',
      ts: fake.state.nextTs(),
      threadTs: parent,
      user: 'UBOT',
      botId: 'BBOT',
      text: 'old answer',
    });
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'and now?', threadTs: parent });
    const event = await log.next<MessageEvent>();
    expect(event).toMatchObject({ chat: `slack:C1:${parent}`, text: 'and now?' });
  });

  it('a top-level DM starts a session in its own thread; DM thread replies continue it', async () => {
    const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'private hello' });
    expect((await log.next()).chat).toBe(`slack:D1:${ts}`);
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'in thread', threadTs: ts });
    expect((await log.next((e) => (e as MessageEvent).text === 'in thread')).chat).toBe(`slack:D1:${ts}`);
  });

  it("ignores the bot's own messages and other bots'", async () => {
    const own = fake.eventBody({
      type: 'message',
      channel: 'D1',
      channel_type: 'im',
      user: 'UBOT',
      text: 'mine',
      ts: '5.1',
    });
    const otherBot = fake.eventBody({
      type: 'message',
      subtype: 'bot_message',
      channel: 'D1',
      channel_type: 'im',
      bot_id: 'B999',
      text: 'beep',
      ts: '5.2',
    });
    const otherBotUser = fake.eventBody({
      type: 'message',
      channel: 'D1',
      channel_type: 'im',
      user: 'U9',
      bot_id: 'B9',
      text: 'boop',
      ts: '5.3',
    });
    await fake.deliver('events_api', own);
    await fake.deliver('events_api', otherBot);
    await fake.deliver('events_api', otherBotUser);
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'marker' });
    await log.next();
    expect(log.events.map((e) => (e as MessageEvent).text)).toEqual(['marker']);
  });

  it('a redelivered event (retry_attempt) never starts a turn twice', async () => {
    const body = fake.eventBody({
      type: 'message',
      channel: 'D1',
      channel_type: 'im',
      user: 'U1',
      text: 'once',
      ts: '7.1',
    });
    const first = await fake.deliver('events_api', body);
    const retry = await fake.deliver('events_api', body, { retryAttempt: 1 });
    const retry2 = await fake.deliver('events_api', body, { retryAttempt: 2 });
    expect([first.ack, retry.ack, retry2.ack].every((a) => a !== undefined)).toBe(true);
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'marker' });
    await log.next((e) => (e as MessageEvent).text === 'marker');
    expect(log.events.filter((e) => (e as MessageEvent).text === 'once')).toHaveLength(1);
    expect(log.events[0]?.deliveryId).toBe(body.event_id);
  });

  it('a redelivered edit is handed on once', async () => {
    const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text: 'v1' });
    await log.next();
    const edit = fake.eventBody({
      type: 'message',
      subtype: 'message_changed',
      channel: 'D1',
      channel_type: 'im',
      ts: '9.9',
      message: { type: 'message', user: 'U1', text: 'v2', ts },
      previous_message: { type: 'message', user: 'U1', text: 'v1', ts },
    });
    await fake.deliver('events_api', edit);
    await fake.deliver('events_api', edit, { retryAttempt: 1 });
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'marker' });
    await log.next((e) => (e as MessageEvent).text === 'marker');
    expect(log.events.filter((e) => e.type === 'edit')).toHaveLength(1);
  });

  it('message_changed becomes an edit of the original message; unchanged text is not an edit', async () => {
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: mention('first version') });
    await log.next();
    await fake.editMessage('C1', ts, mention('second version'));
    const edit = await log.next<EditEvent>((e) => e.type === 'edit');
    expect(edit).toMatchObject({
      chat: `slack:C1:${ts}`,
      messageId: ts,
      text: 'second version',
      user: { id: 'U1' },
    });
    await fake.editMessage('C1', ts, mention('second version'));
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'marker', threadTs: ts });
    await log.next((e) => (e as MessageEvent).text === 'marker');
    expect(log.events.filter((e) => e.type === 'edit')).toHaveLength(1);
  });

  it('shared images and documents are downloaded with the bot token (from Slack only) and handed on', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const image = fake.addFile('shot.png', 'image/png', png);
    const pdf = Buffer.from('%PDF-1.4 notes');
    const doc = fake.addFile('notes.pdf', 'application/pdf', pdf);
    const voice = fake.addFile('memo.m4a', 'audio/mp4', Buffer.from('....'));
    // A URL outside Slack (and outside SLACK_API_URL) never receives the token.
    const elsewhere = {
      ...fake.addFile('x.png', 'image/png', png),
      url_private: 'http://127.0.0.2:9/x.png',
      url_private_download: undefined,
    };
    await fake.userMessage({
      channel: 'D1',
      user: 'U1',
      text: 'look',
      files: [image, doc, voice, elsewhere],
    });
    const event = await log.next<MessageEvent>();
    expect(event.attachments).toEqual([
      { kind: 'image', mediaType: 'image/png', name: 'shot.png', size: png.length, bytes: png },
      { kind: 'document', mediaType: 'application/pdf', name: 'notes.pdf', size: pdf.length, bytes: pdf },
      // Audio is not fetched until the core transcribes it.
      { kind: 'audio', mediaType: 'audio/mp4', name: 'memo.m4a', size: 4, download: expect.any(Function) },
      { kind: 'image', mediaType: 'image/png', name: 'x.png', size: png.length, problem: 'download-failed' },
    ]);
    expect(fake.state.fileDownloads).not.toContain(voice.id);
  });

  it('a Slack Connect share that carries only the file id is completed with files.info, then downloaded', async () => {
    const csv = Buffer.from('a,b\n');
    const full = fake.addFile('shared.csv', 'text/csv', csv);
    await fake.userMessage({
      channel: 'D1',
      user: 'U1',
      text: 'from the partner org',
      files: [{ id: full.id, file_access: 'check_file_info' }],
    });
    const event = await log.next<MessageEvent>();
    expect(event.attachments).toEqual([
      { kind: 'document', mediaType: 'text/csv', name: 'shared.csv', size: csv.length, bytes: csv },
    ]);
    expect(fake.callsOf('files.info').map((c) => c.args.file)).toEqual([full.id]);
  });

  it('a shared file over the file limit is marked too large without being fetched', async () => {
    await stopAdapter(fake, adapter);
    ({ adapter, log } = await startAdapter(fake, { maxFileBytes: 10 }));
    const big = fake.addFile('big.csv', 'text/csv', Buffer.alloc(11, 65));
    await fake.userMessage({ channel: 'D1', user: 'U1', text: 'sum it', files: [big] });
    const event = await log.next<MessageEvent>();
    expect(event.attachments).toEqual([
      {
        kind: 'document',
        mediaType: 'text/csv',
        name: 'big.csv',
        size: 11,
        problem: 'too-large',
        limitBytes: 10,
      },
    ]);
    expect(fake.state.fileDownloads).toEqual([]);
  });

  it('bot command words typed in a thread are commands; ordinary sentences are not', async () => {
    const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: mention('start') });
    await log.next();
    for (const text of ['compact keep the names', '!status', '/rename my work', 'help me with this', 'stop'])
      await fake.userMessage({ channel: 'C1', user: 'U1', text, threadTs: ts });
    await log.next((e) => e.type === 'command' && (e as CommandEvent).name === 'stop');
    const seen = log.events
      .slice(1)
      .map((e) => (e.type === 'command' ? `${e.name}|${e.args}` : `msg:${(e as MessageEvent).text}`));
    expect(seen).toEqual([
      'compact|keep the names',
      'status|',
      'rename|my work',
      'msg:help me with this',
      'stop|',
    ]);
  });
});
