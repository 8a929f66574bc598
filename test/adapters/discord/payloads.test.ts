/**
 * Every kind of Discord event, as Discord sends it, replayed into the ready
 * bot (`npm start`'s startSwitchboard) through the real discord.js against
 * the fake: from an allowed user and from a stranger, each followed by a
 * plain DM that must still be answered. Then malformed payloads, which must
 * neither stop the process nor the adapter.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNREADABLE_INTERACTION } from '../../../adapters/discord/gateway-guard.js';
import {
  INACTIVE_CONTROL,
  UNSUPPORTED_CONTEXT_MENU,
  UNSUPPORTED_INTERACTION,
} from '../../../adapters/discord/interactions.js';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import {
  type FakeChannel,
  type FakeDiscord,
  type FakeInteraction,
  type FakeUser,
  startFakeDiscord,
} from '../../fakes/discord/index.js';
import { snowflake } from '../../fakes/discord/model.js';
import {
  autocomplete,
  channelMention,
  type DiscordFixture,
  type DiscordScene,
  dmButtonWithoutOwners,
  forwarded,
  malformed,
  messageContextMenu,
  modalSubmit,
  otherBot,
  selectMenu,
  slashAskAsDocumented,
  stickerOnly,
  systemMessage,
  userContextMenu,
} from '../../fixtures/discord.js';
import { watchUnhandled } from '../../reliability/telegram-world.js';
import { startApp } from './app.js';

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('Discord payloads as the platform sends them', () => {
  let fake: FakeDiscord;
  let anthropic: FakeAnthropic;
  let root: string;
  let app: RunningApp;
  let alice: FakeUser;
  let mallory: FakeUser;
  let aliceDm: FakeChannel;
  let malloryDm: FakeChannel;
  let pings = 0;
  let watch: ReturnType<typeof watchUnhandled>;

  beforeAll(async () => {
    watch = watchUnhandled();
    fake = await startFakeDiscord();
    anthropic = await startFakeAnthropic();
    root = await mkdtemp(join(tmpdir(), 'switchboard-discord-payloads-'));
    alice = fake.user('alice');
    mallory = fake.user('mallory');
    aliceDm = fake.dmChannel(alice);
    malloryDm = fake.dmChannel(mallory);
    // Alice's DM gets an answer after every fixture: at Discord's 5 writes per 5 s the run
    // waited on the pace most of the time. The pace is scaled down tenfold on both sides.
    app = await startApp(fake, anthropic, root, { scaled: true });
  });

  afterAll(async () => {
    await app?.stop();
    await fake.close();
    await anthropic.close();
    await rm(root, { recursive: true, force: true });
    watch.stop();
  });

  /** Each fixture runs for alice (allowed), then for mallory (a stranger), in their own DMs. */
  const allowedThenStranger = () =>
    [
      [alice, aliceDm],
      [mallory, malloryDm],
    ] as const;

  function scene(user: FakeUser, dm: FakeChannel): DiscordScene {
    return {
      applicationId: fake.applicationId,
      guildId: fake.guildId,
      channelId: fake.generalId,
      dmId: dm.id,
      user: { id: user.id, username: user.username, discriminator: '0' },
      botId: fake.botUser.id,
    };
  }

  function replay(fixture: DiscordFixture, user: FakeUser, dm: FakeChannel): FakeInteraction | undefined {
    const payload = fixture.payload(scene(user, dm));
    if (fixture.via === 'interaction') return fake.replayInteraction(payload, user);
    if (fixture.via === 'message') fake.replayMessage(payload);
    else fake.replayDispatch(fixture.t ?? 'MESSAGE_CREATE', payload);
    return undefined;
  }

  const botTextsIn = (channelId: string) =>
    fake.botMessages(channelId).filter((m) => m.content.length > 0 && m.interactionId === undefined);

  /**
   * Alice's plain DM is answered. Her DM's messages are handled in order, so
   * once this answer is there, whatever the fixture before it caused in the
   * DM is there too.
   */
  async function stillAnswers(): Promise<void> {
    const text = `plain message ${++pings}`;
    fake.userMessage({ channelId: aliceDm.id, author: alice, content: text });
    await fake.waitFor(
      () => botTextsIn(aliceDm.id).some((m) => m.content.includes(text)),
      `the answer to "${text}"`,
    );
    expect(watch.errors).toEqual([]);
  }

  /** The one answer the interaction got, once it has one. */
  async function answerOf(interaction: FakeInteraction): Promise<{ type: number; text: string }> {
    await fake.waitFor(() => interaction.callbacks.length > 0, `a callback for ${interaction.id}`);
    const original = interaction.originalId ? fake.messages.get(interaction.originalId) : undefined;
    if (interaction.callbacks[0] === 5) {
      await fake.waitFor(
        () => fake.messages.get(interaction.originalId ?? '')?.content,
        'the deferred answer',
      );
    }
    return {
      type: interaction.callbacks[0] ?? 0,
      text: fake.messages.get(interaction.originalId ?? '')?.content ?? original?.content ?? '',
    };
  }

  describe('from an allowed user, then from a stranger', () => {
    it('/ask exactly as documented (no entitlements, no channel object): a thread for alice, a private refusal for a stranger', async () => {
      const threadsBefore = fake.threadsOf(fake.generalId).length;
      const asked = replay(slashAskAsDocumented, alice, aliceDm)!;
      const thread = await fake.waitFor(
        () => fake.threadsOf(fake.generalId)[threadsBefore],
        'the /ask thread',
      );
      await fake.waitFor(
        () => botTextsIn(thread.id).some((m) => m.content.includes('what is the weather like')),
        'the answer in the thread',
      );
      expect(asked.late).toBe(0);
      await stillAnswers();

      const refused = replay(slashAskAsDocumented, mallory, malloryDm)!;
      const answer = await answerOf(refused);
      expect(answer.text).toMatch(/not allowed/);
      expect(refused.ephemeral).toBe(true);
      expect(fake.threadsOf(fake.generalId)).toHaveLength(threadsBefore + 1);
      await stillAnswers();
    });

    it('a mention in a channel: a thread for alice; for a stranger no thread, a refusal by DM', async () => {
      const threadsBefore = fake.threadsOf(fake.generalId).length;
      replay(channelMention, alice, aliceDm);
      const thread = await fake.waitFor(() => fake.threadsOf(fake.generalId)[threadsBefore], 'a thread');
      await fake.waitFor(() => botTextsIn(thread.id).length > 0, 'the answer in the thread');
      await stillAnswers();

      replay(channelMention, mallory, malloryDm);
      await fake.waitFor(
        () => botTextsIn(malloryDm.id).find((m) => /not allowed/.test(m.content)),
        'the refusal in the stranger DM',
      );
      expect(fake.threadsOf(fake.generalId)).toHaveLength(threadsBefore + 1);
      expect(botTextsIn(fake.generalId)).toEqual([]);
      await stillAnswers();
    });

    it('a stranger whose DMs are closed gets one reply where they asked, still no thread', async () => {
      const threadsBefore = fake.threadsOf(fake.generalId).length;
      const closed = fake.user('trudy');
      fake.closedDms.add(closed.id);
      replay(channelMention, closed, fake.dmChannel(closed));
      await fake.waitFor(
        () => botTextsIn(fake.generalId).find((m) => /not allowed/.test(m.content)),
        'the refusal in the channel',
      );
      expect(fake.threadsOf(fake.generalId)).toHaveLength(threadsBefore);
      await stillAnswers();
    });

    it('a DM button press without authorizing_integration_owners is acknowledged, for both', async () => {
      for (const [user, dm] of allowedThenStranger()) {
        const press = replay(dmButtonWithoutOwners, user, dm)!;
        const answer = await answerOf(press);
        expect(answer.text.length).toBeGreaterThan(0);
        expect(press.late).toBe(0);
        await stillAnswers();
      }
    });

    const oneLiners: [DiscordFixture, string][] = [
      [userContextMenu, UNSUPPORTED_CONTEXT_MENU],
      [messageContextMenu, UNSUPPORTED_CONTEXT_MENU],
      [modalSubmit, UNSUPPORTED_INTERACTION],
      [selectMenu, INACTIVE_CONTROL],
    ];
    for (const [fixture, text] of oneLiners) {
      it(`${fixture.name}: one private line saying what the bot cannot do, for both`, async () => {
        for (const [user, dm] of allowedThenStranger()) {
          const interaction = replay(fixture, user, dm)!;
          const answer = await answerOf(interaction);
          expect(answer).toEqual({ type: 4, text });
          expect(interaction.ephemeral).toBe(true);
          await stillAnswers();
        }
      });
    }

    it('autocomplete is answered with (no) choices within the deadline, for both', async () => {
      for (const [user, dm] of allowedThenStranger()) {
        const interaction = replay(autocomplete, user, dm)!;
        await fake.waitFor(() => interaction.callbacks.length > 0, 'the autocomplete result');
        expect(interaction.callbacks).toEqual([8]);
        expect(interaction.late).toBe(0);
        await stillAnswers();
      }
    });

    it('a sticker-only message gets the same line as on Telegram; a stranger is refused', async () => {
      replay(stickerOnly, alice, aliceDm);
      await fake.waitFor(
        () =>
          botTextsIn(aliceDm.id).find((m) => m.content === "I can't read stickers yet; please send text."),
        'the sticker answer',
      );
      await stillAnswers();
      replay(stickerOnly, mallory, malloryDm);
      await fake.waitFor(
        () => botTextsIn(malloryDm.id).find((m) => /not allowed/.test(m.content)),
        'the refusal',
      );
      await stillAnswers();
    });

    it('a forwarded message reaches the model with its text and image', async () => {
      const imageId = snowflake();
      fake.files.set(imageId, { contentType: 'image/png', data: PNG });
      const url = `${fake.apiUrl.replace(/\/api$/, '')}/attachments/${imageId}/screenshot.png`;
      const before = anthropic.requests.length;
      replay(forwarded(url, imageId), alice, aliceDm);
      await fake.waitFor(
        () => botTextsIn(aliceDm.id).find((m) => m.content.includes('the build broke on main')),
        'the answer to the forward',
      );
      const request = anthropic.requests
        .slice(before)
        .find((r) => JSON.stringify(r.messages).includes('the build broke on main'));
      const last = request.messages.at(-1);
      const blocks = last.content as { type: string; source?: { data?: string } }[];
      expect(blocks.some((b) => b.type === 'image' && b.source?.data === PNG.toString('base64'))).toBe(true);
      await stillAnswers();

      replay(forwarded(url, imageId), mallory, malloryDm);
      await fake.waitFor(
        () => botTextsIn(malloryDm.id).filter((m) => /not allowed/.test(m.content)).length >= 2,
        'the refusal',
      );
      await stillAnswers();
    });

    it('system messages and other bots are ignored', async () => {
      const before = botTextsIn(aliceDm.id).length;
      replay(systemMessage, alice, aliceDm);
      replay(otherBot, alice, aliceDm);
      await stillAnswers();
      // Only the plain message's answer was added.
      expect(botTextsIn(aliceDm.id)).toHaveLength(before + 1);
    });
  });

  describe('malformed and incomplete payloads', () => {
    for (const fixture of malformed) {
      it(`${fixture.name}: the process and the adapter keep running`, async () => {
        const interaction = replay(fixture, alice, aliceDm);
        if (interaction?.token) {
          const answer = await answerOf(interaction);
          expect(answer.text).toMatch(new RegExp(`${UNREADABLE_INTERACTION.slice(0, 20)}|not allowed|wrong`));
        }
        await stillAnswers();
      });
    }
  });
});
