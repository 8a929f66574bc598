import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, INTENT_MESSAGE } from '../../../adapters/discord/index.js';
import { SwitchboardError } from '../../../src/errors.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';

async function startError(fake: FakeDiscord, token: string, guildId?: string): Promise<SwitchboardError> {
  const adapter = createDiscordAdapter({
    token,
    apiUrl: fake.apiUrl,
    restRetries: 0,
    ...(guildId ? { guildId } : {}),
  });
  try {
    await adapter.start(async () => {});
  } catch (err) {
    expect(adapter.client).toBeUndefined();
    if (err instanceof SwitchboardError) return err;
    throw err;
  }
  await adapter.stop();
  throw new Error('start() resolved');
}

describe('Discord adapter: start-up errors', () => {
  let fake: FakeDiscord | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('says how to enable the Message Content intent when the gateway closes with 4014', async () => {
    fake = await startFakeDiscord({ messageContentAllowed: false });
    const err = await startError(fake, fake.token);
    expect(err.message).toBe(INTENT_MESSAGE);
    expect(err.message).not.toContain(fake.token);
    const closed = await fake.waitFor(() => fake?.gateway.log.find((l) => l.op === 'close'), 'gateway close');
    expect(closed.code).toBe(4014);
    // The client asked for Message Content (1 << 15) and gave up instead of reconnecting.
    expect((fake.gateway.log[0]?.intents ?? 0) & (1 << 15)).toBeTruthy();
    expect(fake.gateway.log.filter((l) => l.op === 'identify')).toHaveLength(1);
  });

  it('says DISCORD_BOT_TOKEN was rejected on a 401, without echoing the token', async () => {
    fake = await startFakeDiscord();
    const wrong = 'wrong-token.secret-value-xyz';
    const err = await startError(fake, wrong);
    expect(err.code).toBe('PLATFORM_AUTH');
    expect(err.message).toContain('DISCORD_BOT_TOKEN was rejected');
    expect(err.message).not.toContain(wrong);
    expect(fake.calls[0]).toMatchObject({ path: '/gateway/bot', status: 401 });
  });

  it('names DISCORD_GUILD_ID when the bot is not in that guild', async () => {
    fake = await startFakeDiscord();
    const err = await startError(fake, fake.token, '99999999');
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('DISCORD_GUILD_ID');
  });
});
