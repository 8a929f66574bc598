/**
 * HTTP mode: Slack posts signed requests to /slack/events. Signed ones are
 * taken; unsigned, badly signed, stale and replayed ones are refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { slackMarkdown } from '../../../adapters/slack/markdown.js';
import type { ButtonEvent, CommandEvent, MessageEvent } from '../../../src/bot/adapter-contract.js';
import { type FakeSlack, SlackRequestSender, startFakeSlack } from '../../fakes/slack/index.js';
import { type EventLog, startAdapter } from './helpers.js';

const SECRET = 'fake-signing-secret-123';
let fake: FakeSlack;
let adapter: SlackAdapter | undefined;
let log: EventLog;
let sender: SlackRequestSender;

beforeEach(async () => {
  fake = await startFakeSlack();
  ({ adapter, log } = await startAdapter(fake, { signingSecret: SECRET }));
  sender = new SlackRequestSender(adapter.url as string, SECRET);
  fake.httpTarget = sender;
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
});

const dm = (text: string, ts: string) =>
  fake.eventBody({ type: 'message', channel: 'D1', channel_type: 'im', user: 'U1', text, ts });

describe('Slack HTTP mode', () => {
  it('listens without Socket Mode and takes a signed event', async () => {
    expect(adapter?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/slack\/events$/);
    expect(fake.callsOf('apps.connections.open')).toHaveLength(0);
    const res = await sender.event(dm('signed hello', '1.1'));
    expect(res.status).toBe(200);
    expect((await log.next<MessageEvent>()).text).toBe('signed hello');
  });

  it('rejects unsigned, badly signed and stale requests', async () => {
    const unsigned = await sender.event(dm('unsigned', '2.1'), { signature: 'none' });
    const bad = await sender.event(dm('bad', '2.2'), { signature: 'bad' });
    const stale = await sender.event(dm('stale', '2.3'), {
      timestampSec: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect([unsigned.status, bad.status, stale.status]).toEqual([401, 401, 401]);
    await sender.event(dm('marker', '2.4'));
    await log.next();
    expect(log.events.map((e) => (e as MessageEvent).text)).toEqual(['marker']);
  });

  it('rejects a replayed request (same signature) even within five minutes', async () => {
    const first = await sender.event(dm('pay once', '3.1'));
    expect(first.status).toBe(200);
    await log.next();
    const replay = await sender.replay(first.request);
    expect(replay.status).toBe(401);
    // A fresh delivery of a new event is still taken.
    await sender.event(dm('marker', '3.2'));
    await log.next((e) => (e as MessageEvent).text === 'marker');
    expect(log.events.filter((e) => (e as MessageEvent).text === 'pay once')).toHaveLength(1);
  });

  it('a retried delivery (x-slack-retry-num, new signature) is acknowledged but not handed on twice', async () => {
    const body = dm('retried', '4.1');
    expect((await sender.event(body)).status).toBe(200);
    const retry = await sender.event(body, { retryNum: 1, timestampSec: Math.floor(Date.now() / 1000) + 1 });
    expect(retry.status).toBe(200);
    await sender.event(dm('marker', '4.2'));
    await log.next((e) => (e as MessageEvent).text === 'marker');
    expect(log.events.filter((e) => (e as MessageEvent).text === 'retried')).toHaveLength(1);
  });

  it('slash commands and button presses arrive signed and are acknowledged at once', async () => {
    const started = Date.now();
    const cmd = await fake.slashCommand({
      channel: 'C1',
      user: 'U1',
      text: 'compact the plan',
      threadTs: '5.1',
    });
    expect(cmd.http?.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await log.next<CommandEvent>()).toMatchObject({
      name: 'compact',
      args: 'the plan',
      chat: 'slack:C1:5.1',
    });
    const { messageId } = await (adapter as SlackAdapter).send('slack:C1:5.1', {
      text: 'Allow?',
      format: slackMarkdown,
      buttons: [[{ label: 'Allow', payload: 'a:q1' }]],
    });
    const press = await fake.pressButton({ user: 'U1', channel: 'C1', messageTs: messageId, value: 'a:q1' });
    expect(press.http?.status).toBe(200);
    expect(await log.next<ButtonEvent>((e) => e.type === 'button')).toMatchObject({ payload: 'a:q1' });
    const unsigned = await fake.deliver(
      'slash_commands',
      { command: '/switchboard', text: 'new' },
      { signature: 'none' },
    );
    expect(unsigned.http?.status).toBe(401);
  });
});
