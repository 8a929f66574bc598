import { afterEach, describe, expect, it } from 'vitest';
import { discordMarkdown } from '../../../adapters/discord/markdown.js';
import type { ChatEvent, MessageEvent } from '../../../src/bot/adapter-contract.js';
import { plain } from '../../../src/bot/format/dialect.js';
import { RateLimitError, SwitchboardError } from '../../../src/errors.js';
import { mention, type Rig, startRig } from './helpers.js';

const isMessage = (e: ChatEvent): e is MessageEvent => e.type === 'message';

async function openThread(rig: Rig): Promise<{ chat: string; threadId: string; opening: string }> {
  const { fake, log } = rig;
  const opening = fake.userMessage({
    channelId: fake.generalId,
    author: fake.user('alice'),
    content: `${mention(fake)} hi`,
  });
  const event = await log.next(isMessage);
  return { chat: event.chat, threadId: event.chat.split(':')[1]!, opening: opening.id };
}

async function caught(p: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SwitchboardError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('Discord adapter: render operations', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('declares Discord capabilities, with paces from the options', async () => {
    rig = await startRig({}, { paces: { minEditIntervalMs: 50, budget: { count: 5, windowMs: 250 } } });
    expect(rig.adapter.capabilities('discord:1')).toEqual({
      maxMessageLength: 2000,
      minEditIntervalMs: 50,
      budget: { count: 5, windowMs: 250 },
      dialect: discordMarkdown,
      nativeStream: false,
      buttonPayloadLimit: 100,
      typingIntervalMs: 9000,
      mentions: 'none',
      // A bot's default upload limit, 10 MiB; a caption is a message's content.
      maxUploadBytes: 10 * 1024 * 1024,
      maxCaptionLength: 2000,
    });
  });

  it('sends, edits with buttons, removes buttons, deletes and shows typing', async () => {
    rig = await startRig();
    const { fake, adapter } = rig;
    const { chat, threadId, opening } = await openThread(rig);
    const sent = await adapter.send(chat, {
      text: '**Working**',
      format: discordMarkdown,
      replyTo: opening,
      buttons: [[{ label: 'Stop', payload: 'x:abc123', style: 'danger' }]],
    });
    const message = fake.messages.get(sent.messageId)!;
    expect(message.channel_id).toBe(threadId);
    // The opening message lives in the parent channel: no cross-channel reply reference.
    expect(message.message_reference).toBeUndefined();
    expect(message.components).toEqual([
      { type: 1, components: [{ type: 2, style: 4, label: 'Stop', custom_id: 'x:abc123' }] },
    ]);
    await adapter.edit(chat, sent.messageId, { text: '**Working** more', format: discordMarkdown });
    expect(message.content).toBe('**Working** more');
    expect(message.components).toHaveLength(1);
    await adapter.edit(chat, sent.messageId, { text: 'Done', format: discordMarkdown, buttons: [] });
    expect(message.components).toEqual([]);
    const reply = await adapter.send(chat, {
      text: 'a reply',
      format: discordMarkdown,
      replyTo: sent.messageId,
    });
    expect(fake.messages.get(reply.messageId)?.message_reference?.message_id).toBe(sent.messageId);
    await adapter.delete(chat, reply.messageId);
    expect(fake.messages.get(reply.messageId)?.deleted).toBe(true);
    await adapter.typing(chat);
    expect(fake.calls.some((c) => c.method === 'POST' && c.path === `/channels/${threadId}/typing`)).toBe(
      true,
    );
    const body = fake.calls.find((c) => c.method === 'POST' && c.route === '/channels/:id/messages')
      ?.body as {
      allowed_mentions: unknown;
    };
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it('escapes plain text so Markdown characters show as typed', async () => {
    rig = await startRig();
    const dm = rig.fake.dmChannel(rig.fake.user('alice'));
    const sent = await rig.adapter.send(`discord:dm:${dm.id}`, {
      text: 'use *stars* and _under_',
      format: plain,
    });
    expect(rig.fake.messages.get(sent.messageId)?.content).toBe('use \\*stars\\* and \\_under\\_');
  });

  it('maps Discord refusals to the core error codes', async () => {
    rig = await startRig();
    const { chat } = await openThread(rig);
    const tooLong = await caught(rig.adapter.send(chat, { text: 'x'.repeat(2001), format: discordMarkdown }));
    expect(tooLong.code).toBe('MESSAGE_TOO_LONG');
    const gone = await caught(rig.adapter.edit(chat, '123456', { text: 'x', format: discordMarkdown }));
    expect(gone.code).toBe('NOT_FOUND');
    const badPayload = await caught(
      rig.adapter.send(chat, {
        text: 'x',
        format: discordMarkdown,
        buttons: [[{ label: 'b', payload: 'p'.repeat(101) }]],
      }),
    );
    expect(badPayload.code).toBe('PLATFORM_ERROR');
    rig.fake.addFault({ route: 'POST /channels/:id/messages', status: 500, times: 1 });
    const failed = await caught(rig.adapter.send(chat, { text: 'x', format: discordMarkdown }));
    expect(failed.code).toBe('PLATFORM_ERROR');
    expect(() => rig!.adapter.capabilities('discord:1')).not.toThrow();
    await expect(rig.adapter.send('telegram:1', { text: 'x', format: plain })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('lets discord.js queue edits at the channel rate limit: every edit lands, in order', async () => {
    // The fake's limit is scaled down (4 per 400 ms) to keep the test fast.
    rig = await startRig({ rateLimit: { count: 4, windowMs: 400 } });
    const { fake, adapter } = rig;
    const { chat, threadId } = await openThread(rig);
    const sent = await adapter.send(chat, { text: 'v0', format: discordMarkdown });
    for (let i = 1; i <= 8; i++)
      await adapter.edit(chat, sent.messageId, { text: `v${i}`, format: discordMarkdown });
    expect(fake.messages.get(sent.messageId)?.history).toEqual([
      'v0',
      'v1',
      'v2',
      'v3',
      'v4',
      'v5',
      'v6',
      'v7',
      'v8',
    ]);
    const writes = fake.calls.filter(
      (c) => c.path.startsWith(`/channels/${threadId}/messages`) && c.status === 200,
    );
    const spread = writes.at(-1)!.at - writes[0]!.at;
    expect(spread).toBeGreaterThanOrEqual(400);
    // discord.js read the X-RateLimit headers and waited before sending: Discord never had to say 429.
    expect(fake.rateLimitedCalls).toHaveLength(0);
  });

  it('in reject mode a rate-limited edit reaches the core as RATE_LIMITED with the wait', async () => {
    rig = await startRig({ rateLimit: { count: 2, windowMs: 2000 } }, { rateLimits: 'reject' });
    const { adapter } = rig;
    const { chat } = await openThread(rig);
    const sent = await adapter.send(chat, { text: 'v0', format: discordMarkdown });
    await adapter.edit(chat, sent.messageId, { text: 'v1', format: discordMarkdown });
    const err = await caught(adapter.edit(chat, sent.messageId, { text: 'v2', format: discordMarkdown }));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(err.retryAfterMs).toBeLessThanOrEqual(2100);
  });

  it('maps a raw 429 answer to RATE_LIMITED', async () => {
    rig = await startRig({}, { rateLimits: 'reject' });
    const { chat } = await openThread(rig);
    const sent = await rig.adapter.send(chat, { text: 'v0', format: discordMarkdown });
    rig.fake.addFault({
      route: 'PATCH /channels/:id/messages/:id',
      status: 429,
      retryAfterMs: 700,
      times: 1,
    });
    const err = await caught(rig.adapter.edit(chat, sent.messageId, { text: 'v1', format: discordMarkdown }));
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(700);
    // A route's limit, not Discord's global one: only this chat waits.
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).scope).toBe('chat');
  });
});
