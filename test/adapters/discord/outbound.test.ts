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

  it('an edit whose bucket discord.js knows is empty is reported at once, before Discord has to say 429', async () => {
    rig = await startRig({ rateLimit: { count: 3, windowMs: 2000 } });
    const { adapter, fake } = rig;
    const { chat } = await openThread(rig);
    const sent = await adapter.send(chat, { text: 'v0', format: discordMarkdown });
    // The first edit teaches discord.js the route's bucket; the second empties it (3 writes per channel).
    await adapter.edit(chat, sent.messageId, { text: 'v1', format: discordMarkdown });
    await adapter.edit(chat, sent.messageId, { text: 'v2', format: discordMarkdown });
    const calls = fake.calls.length;
    const err = await caught(adapter.edit(chat, sent.messageId, { text: 'v3', format: discordMarkdown }));
    expect(err.code).toBe('RATE_LIMITED');
    expect((err as RateLimitError).scope).toBe('chat');
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(err.retryAfterMs).toBeLessThanOrEqual(2100);
    // discord.js read the X-RateLimit headers: the edit never left, and Discord never had to say 429.
    expect(fake.calls.slice(calls)).toEqual([]);
    expect(fake.rateLimitedCalls).toHaveLength(0);
    expect(fake.messages.get(sent.messageId)?.history).toEqual(['v0', 'v1', 'v2']);
  });

  it('a 429 on a send, a delete or typing reaches the core with its wait; none is retried inside discord.js', async () => {
    rig = await startRig({});
    const { adapter, fake } = rig;
    const { chat, threadId } = await openThread(rig);
    const kept = await adapter.send(chat, { text: 'kept', format: discordMarkdown });
    for (const [route, call] of [
      ['POST /channels/:id/messages', () => adapter.send(chat, { text: 'later', format: discordMarkdown })],
      ['DELETE /channels/:id/messages/:id', () => adapter.delete(chat, kept.messageId)],
      ['POST /channels/:id/typing', () => adapter.typing(chat)],
    ] as const) {
      fake.addFault({ route, status: 429, retryAfterMs: 1500, times: 1 });
      const err = await caught(call());
      expect(err, route).toBeInstanceOf(RateLimitError);
      expect((err as RateLimitError).scope, route).toBe('chat');
      expect(err.retryAfterMs, route).toBeGreaterThanOrEqual(1500);
    }
    // Each call reached Discord once: the 429 went to the core, not into a hidden retry.
    expect(fake.rateLimitedCalls).toHaveLength(3);
    expect(fake.botMessages(threadId).map((m) => m.content)).toEqual(['kept']);
  });

  it("Discord's global limit is reported with the global scope", async () => {
    rig = await startRig({});
    const { chat } = await openThread(rig);
    rig.fake.addFault({
      route: 'POST /channels/:id/messages',
      status: 429,
      retryAfterMs: 900,
      global: true,
      times: 1,
    });
    const err = await caught(rig.adapter.send(chat, { text: 'x', format: discordMarkdown }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).scope).toBe('global');
    expect(err.retryAfterMs).toBeGreaterThanOrEqual(900);
  });

  it('maps a raw 429 answer to RATE_LIMITED', async () => {
    rig = await startRig({});
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
