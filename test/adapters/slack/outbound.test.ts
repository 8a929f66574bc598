/**
 * Render operations -> Web API calls, against the fake Slack's limits: what
 * a person sees after each call, and the errors the core must get.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import { slackMarkdown, slackMrkdwn } from '../../../adapters/slack/markdown.js';
import type { ButtonEvent } from '../../../src/bot/adapter-contract.js';
import { plain } from '../../../src/bot/format/dialect.js';
import { SwitchboardError } from '../../../src/errors.js';
import {
  type FakeSlack,
  type FakeSlackOptions,
  startFakeSlack,
  visibleText,
} from '../../fakes/slack/index.js';
import { type EventLog, startAdapter, stopAdapter } from './helpers.js';

let fake: FakeSlack;
let adapter: SlackAdapter | undefined;
let log: EventLog;

async function setup(options: FakeSlackOptions = {}) {
  fake = await startFakeSlack(options);
  ({ adapter, log } = await startAdapter(fake));
  return adapter as SlackAdapter;
}

afterEach(async () => {
  await stopAdapter(fake, adapter);
  adapter = undefined;
  await fake.close();
});

async function rejection(p: Promise<unknown>): Promise<SwitchboardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SwitchboardError);
  return err as SwitchboardError;
}

const seen = (channel: string, ts: string) => visibleText(fake.state.get(channel, ts)!);

describe('Slack outbound', () => {
  it('sends in the thread of the chat key, in each format', async () => {
    const a = await setup();
    const chat = 'slack:C1:1700000000.000001';
    const md = await a.send(chat, { text: '**bold** and `code`', format: slackMarkdown });
    const mrkdwn = await a.send(chat, { text: '*bold* _it_', format: slackMrkdwn });
    const asPlain = await a.send(chat, { text: '*not bold*', format: plain });
    const msgs = [md, mrkdwn, asPlain].map((m) => fake.state.get('C1', m.messageId)!);
    expect(msgs.every((m) => m.threadTs === '1700000000.000001')).toBe(true);
    expect(msgs[0]?.blocks).toEqual([{ type: 'markdown', text: '**bold** and `code`' }]);
    expect(msgs[1]?.blocks).toBeUndefined();
    expect(msgs[1]?.text).toBe('*bold* _it_');
    expect(msgs[2]?.blocks?.[0]).toMatchObject({
      type: 'section',
      text: { type: 'plain_text', text: '*not bold*' },
    });
    const post = fake.calls.find((c) => c.method === 'chat.postMessage');
    expect(post?.args).toMatchObject({ unfurl_links: 'false', thread_ts: '1700000000.000001' });
  });

  it('puts buttons in actions blocks, keeps them across text edits and removes them with []', async () => {
    const a = await setup();
    const chat = 'slack:C1:1700000000.000001';
    const buttons = [
      [
        { label: 'Allow', payload: 'a:k3j9x2', style: 'primary' as const },
        { label: 'Deny', payload: 'd:k3j9x2', style: 'danger' as const },
      ],
    ];
    const { messageId } = await a.send(chat, { text: 'May I run `ls`?', format: slackMrkdwn, buttons });
    expect(seen('C1', messageId)).toBe('May I run `ls`?\n[Allow] [Deny]');
    await a.edit(chat, messageId, { text: 'May I run `ls -la`?', format: slackMrkdwn });
    expect(seen('C1', messageId)).toBe('May I run `ls -la`?\n[Allow] [Deny]');
    fake.limits.updateIntervalMs = 0;
    await a.edit(chat, messageId, { text: 'Allowed by Alice', format: slackMrkdwn, buttons: [] });
    expect(seen('C1', messageId)).toBe('Allowed by Alice');
    expect(fake.state.get('C1', messageId)?.blocks).toEqual([]);
  });

  it('a button press becomes a ButtonEvent; its answer is an ephemeral message in the thread', async () => {
    const a = await setup();
    const chat = 'slack:C1:1700000000.000001';
    const { messageId } = await a.send(chat, {
      text: 'Run it?',
      format: slackMarkdown,
      buttons: [[{ label: 'Allow', payload: 'a:zz1' }]],
    });
    const { ack } = await fake.pressButton({
      user: 'U2',
      channel: 'C1',
      messageTs: messageId,
      value: 'a:zz1',
    });
    expect(ack?.latencyMs).toBeLessThan(3000);
    const press = await log.next<ButtonEvent>((e) => e.type === 'button');
    expect(press).toMatchObject({ chat, payload: 'a:zz1', messageId, user: { id: 'U2' } });
    await press.respond({ text: 'Only Alice or an admin can answer this.', ephemeral: true });
    await press.respond({ text: 'second answer is ignored' });
    expect(fake.state.ephemerals).toEqual([
      {
        channel: 'C1',
        user: 'U2',
        threadTs: '1700000000.000001',
        text: 'Only Alice or an admin can answer this.',
      },
    ]);
  });

  it('maps Slack errors to the codes the core acts on', async () => {
    const a = await setup();
    const chat = 'slack:C1:1700000000.000001';
    const { messageId } = await a.send(chat, { text: 'v1', format: slackMrkdwn });
    await a.edit(chat, messageId, { text: 'v2', format: slackMrkdwn });
    const limited = await rejection(a.edit(chat, messageId, { text: 'v3', format: slackMrkdwn }));
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.retryAfterMs).toBe(1000);
    expect(fake.rateLimited).toHaveLength(1);
    expect(seen('C1', messageId)).toBe('v2');

    const long = await rejection(a.send(chat, { text: 'x'.repeat(40_001), format: slackMrkdwn }));
    expect(long.code).toBe('MESSAGE_TOO_LONG');
    fake.faults.push({ method: 'chat.postMessage', error: 'invalid_blocks' });
    expect((await rejection(a.send(chat, { text: 'x', format: slackMarkdown }))).code).toBe(
      'FORMAT_REJECTED',
    );
    expect((await rejection(a.edit(chat, '123.456', { text: 'x', format: plain }))).code).toBe('NOT_FOUND');
    expect((await rejection(a.send('telegram:1', { text: 'x', format: plain }))).code).toBe('NOT_FOUND');
    fake.faults.push({ method: 'chat.postMessage', status: 503 });
    expect((await rejection(a.send(chat, { text: 'x', format: plain }))).code).toBe('PLATFORM_ERROR');
    await a.delete(chat, messageId);
    expect(fake.state.get('C1', messageId)?.deleted).toBe(true);
    await a.delete(chat, messageId); // already gone is fine
  });

  it('a long mrkdwn message with buttons is split over sections Slack accepts', async () => {
    const a = await setup();
    const text = Array.from({ length: 80 }, (_, i) => `line ${i} ${'y'.repeat(60)}`).join('\n');
    const { messageId } = await a.send('slack:C1:1.1', {
      text,
      format: slackMrkdwn,
      buttons: [[{ label: 'Stop', payload: 'x:1' }]],
    });
    const blocks = fake.state.get('C1', messageId)?.blocks ?? [];
    expect(blocks.filter((b) => b.type === 'section').length).toBeGreaterThan(1);
    expect(seen('C1', messageId)).toBe(`${text}\n[Stop]`);
  });

  it('accepts SLACK_API_URL without its trailing slash', async () => {
    fake = await startFakeSlack();
    ({ adapter, log } = await startAdapter(fake, { apiUrl: fake.apiUrl.replace(/\/$/, '') }));
    const { messageId } = await adapter.send('slack:D1:1.1', { text: 'hi', format: plain });
    expect(seen('D1', messageId)).toBe('hi');
  });

  it('refuses to start with a token Slack rejects', async () => {
    fake = await startFakeSlack();
    const err = await rejection(startAdapter(fake, { token: 'xoxb-wrong' }));
    expect(err.code).toBe('PLATFORM_AUTH');
    expect(err.message).toMatch(/SLACK_BOT_TOKEN/);
  });

  it('refuses to start when the app token is rejected', async () => {
    fake = await startFakeSlack();
    const err = await rejection(startAdapter(fake, { appToken: 'xapp-wrong' }));
    expect(err.code).toBe('PLATFORM_AUTH');
    expect(err.message).toMatch(/SLACK_APP_TOKEN/);
  });
});
