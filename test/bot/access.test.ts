import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { PNG_1X1 } from '../fakes/images.js';
import { type BotHarness, HARNESS_API_KEY, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('bot core: access', () => {
  it('with no allowlist answers every message with the user id and how to allow it, and runs nothing', async () => {
    h = await startBotHarness({ allowedUsers: [], admins: [] });
    await h.message('hello', { user: USERS.stranger });
    await h.message('again', { user: USERS.alice });
    await h.settle();
    expect(h.texts()).toEqual([say.noAllowlist('test:eve'), say.noAllowlist('test:alice')]);
    expect(h.texts()[0]).toContain('SWITCHBOARD_ALLOWED_USERS=test:eve');
    expect(h.fakeAnthropic.requests).toHaveLength(0);
    expect(await h.sessionStore.list()).toEqual([]);
    expect(await h.stateStore.getChat(h.chat)).toBeUndefined();
  });

  it('refuses a user outside the allowlist in one line, creates no session, and refuses their presses and commands', async () => {
    h = await startBotHarness();
    await h.message('let me in', { user: USERS.stranger });
    const pressed = await h.press('a:0123456789', { user: USERS.stranger });
    const answered = await h.command('new', '', { user: USERS.stranger, respond: true });
    await h.command('status', '', { user: USERS.stranger });
    await h.settle();
    expect(h.texts()).toEqual([say.notAllowed('test:eve'), say.notAllowed('test:eve')]);
    expect(pressed).toEqual([say.notAllowed('test:eve')]);
    expect(answered).toEqual([say.notAllowed('test:eve')]);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
    expect(await h.sessionStore.list()).toEqual([]);
    expect(await h.stateStore.getChat(h.chat)).toBeUndefined();
    expect(h.logs.some((l) => l.includes('not allowed'))).toBe(true);
  });

  it('lets a linked identity of an allowed person in', async () => {
    h = await startBotHarness({
      allowedUsers: ['test:alice'],
      linkedUsers: { alice: ['test:alice', 'test:al2'] },
    });
    await h.message('hi from my other account', { user: { id: 'al2', name: 'Alice (phone)' } });
    await h.settle();
    expect(h.texts().at(-1)).toBe('Alice (phone) said: hi from my other account');
    expect((await h.stateStore.getChat(h.chat))?.owner).toBe('alice');
  });
});

describe('bot core: intake', () => {
  it('answers each message with the author name reaching the model', async () => {
    h = await startBotHarness();
    await h.message('hello');
    await h.settle();
    expect(h.texts()).toEqual(['Alice said: hello']);
    expect(h.fakeAnthropic.requests).toHaveLength(1);
    expect(h.logs.join('\n')).not.toContain(HARNESS_API_KEY);
  });

  it('ignores a duplicate delivery id, even across a restart', async () => {
    h = await startBotHarness();
    await h.message('once', { deliveryId: 'u1' });
    await h.message('once', { deliveryId: 'u1' });
    await h.settle();
    expect(h.fakeAnthropic.requests).toHaveLength(1);
    expect(h.texts()).toEqual(['Alice said: once']);
    const pressed = await h.press('a:0123456789', { deliveryId: 'u1' });
    expect(pressed).toEqual(['Already handled.']);
    await h.stop();
    const again = await h.restart();
    try {
      await again.message('once', { deliveryId: 'u1' });
      await again.message('new', { deliveryId: 'u2' });
      await again.settle();
      expect(h.fakeAnthropic.requests).toHaveLength(2);
      expect(again.texts()).toEqual(['Alice said: new']);
    } finally {
      await again.close();
    }
  });

  it('accepts a message at once and never waits for the turn', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue({ text: ['Thinking', ' more'], stallAfterChunks: 1 });
    let accepted = false;
    await h.message('slow one').then(() => {
      accepted = true;
    });
    expect(accepted).toBe(true);
    const fake = h.fakeAnthropic;
    await h.until(() => fake.log[0]?.chunksSent === 1, 'first chunk');
    expect(fake.log[0]?.finished).toBe(false);
    await h.command('stop');
    await h.settle();
    expect(fake.log[0]?.closedEarly).toBe(true);
  });

  it('answers attachments it cannot read and sends images to the model', async () => {
    h = await startBotHarness();
    await h.message('', { attachments: [{ kind: 'audio', name: 'voice.ogg' }] });
    await h.settle();
    expect(h.texts()).toEqual(["I can't read voice messages yet; please send text."]);
    expect(h.fakeAnthropic.requests).toHaveLength(0);
    await h.message('what is this?', {
      attachments: [{ kind: 'image', mediaType: 'image/png', data: PNG_1X1 }],
    });
    await h.settle();
    const content = h.fakeAnthropic.requests[0].messages.at(-1).content;
    expect(content.some((b: { type: string }) => b.type === 'image')).toBe(true);
    expect(h.texts().at(-1)).toBe('Alice said: what is this?');
  });

  it('a reply to an earlier message tells the model what it answers', async () => {
    h = await startBotHarness();
    await h.message('no, the second one', {
      replyTo: { messageId: '7', text: 'Option A or option B?', fromBot: true },
    });
    await h.settle();
    const sent = JSON.stringify(h.fakeAnthropic.requests[0].messages);
    expect(sent).toContain('In reply to your earlier message: \\"Option A or option B?\\"');
    expect(sent).toContain('no, the second one');
  });

  it('refuses oversized input, saying the limit', async () => {
    h = await startBotHarness();
    await h.message('x'.repeat(32_001));
    await h.settle();
    expect(h.texts()).toEqual([say.tooLong(32_001)]);
    expect(h.texts()[0]).toContain('32,000');
    expect(h.fakeAnthropic.requests).toHaveLength(0);
  });
});
