/**
 * The adapter contract for Discord: the real discord.js client (REST and
 * gateway) against the fake Discord. Sessions are threads and DMs; the
 * outbound parts run in a thread the bot opened in #general.
 *
 * The adapter is built as the ready bot builds it (adapters/discord/
 * platform.ts: a token, the API URL, the guild; only `restRetries: 0` is
 * added, so an injected 5xx fails at once), so its 429 tests cover the
 * configuration that runs: a rate limit reaches the core
 * as RATE_LIMITED instead of being waited out inside discord.js. The fake's
 * per-channel write limit is raised for these tests, which check what
 * happens to each call, not the pace; the declared budget is checked
 * against Discord's 5 per 5 s instead.
 */
import { createDiscordAdapter } from '../../adapters/discord/index.js';
import { discordMarkdown } from '../../adapters/discord/markdown.js';
import type { Clock } from '../../src/clock.js';
import { type FakeDiscord, type FakeInteraction, startFakeDiscord } from '../fakes/discord/index.js';
import { DISCORD_UPLOAD_LIMIT } from '../fakes/discord/uploads.js';
import type { PlatformHarness, PlatformRig, PressView, Spot } from './harness.js';
import { contractSuite } from './suite.js';

/** Discord's deadline for the first answer to an interaction (the fake's default). */
const ACK_DEADLINE_MS = 3000;

/**
 * The one place the adapter is built, so a change of its option names is
 * made here once.
 */
function createAdapter(fake: FakeDiscord, clock: Clock) {
  return createDiscordAdapter({
    token: fake.token,
    apiUrl: fake.apiUrl,
    guildId: fake.guildId,
    restRetries: 0,
    clock,
  });
}

/** The bot's messages in one channel (a thread or DM) as a person sees them. */
function channel(fake: FakeDiscord, channelId: string): Spot {
  return { botTexts: () => fake.botMessages(channelId).map((m) => m.content) };
}

/** How an interaction (a press, a command) was answered, as the fake Discord saw it. */
function answers(fake: FakeDiscord, interaction: FakeInteraction): PressView {
  return {
    async acknowledged() {
      await fake.waitFor(
        () => interaction.callbacks.length > 0 || interaction.late > 0,
        'an answer to the interaction',
        5000,
      );
      if (interaction.late > 0) throw new Error('the interaction was answered after the deadline');
    },
    shown: () =>
      [...fake.messages.values()]
        .filter((m) => m.interactionId === interaction.id && m.content !== '')
        .map((m) => m.content),
  };
}

const discord: PlatformHarness = {
  name: 'discord',
  places: ['text channel (a mention opens a thread)', 'thread the bot opened', 'direct message'],
  limits: {
    messageLength: {
      value: 2000,
      format: discordMarkdown,
      docs: 'https://discord.com/developers/docs/resources/message#create-message',
    },
    buttonPayloadBytes: {
      value: 100,
      docs: 'https://discord.com/developers/docs/components/reference#button',
    },
    upload: {
      documented: {
        value: DISCORD_UPLOAD_LIMIT,
        docs: 'https://discord.com/developers/docs/reference#uploading-files',
      },
      enforced: DISCORD_UPLOAD_LIMIT,
    },
    ackDeadlineMs: {
      value: ACK_DEADLINE_MS,
      docs: 'https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction',
    },
    chatBudget: { value: 5, windowMs: 5000, docs: 'https://discord.com/developers/docs/topics/rate-limits' },
  },
  cannot: {
    'format-refused': 'Discord never refuses markup: Markdown it cannot read shows as written',
  },
  async start({ log, clock }) {
    const fake = await startFakeDiscord({
      rateLimit: { count: 1000, windowMs: 5000 },
      interactionDeadlineMs: ACK_DEADLINE_MS,
    });
    const adapter = createAdapter(fake, clock);
    try {
      await adapter.start(log.sink);
    } catch (err) {
      await fake.close();
      throw err;
    }
    const alice = fake.user('alice');
    // A thread the bot opened for an earlier mention: where the outbound parts run.
    const thread = fake.createThread(fake.generalId, 'contract', undefined, 11, fake.botUser.id);
    const chat = channel(fake, thread.id);
    /** The message the person wrote last, and how it addressed the bot. */
    let lastSaid: { id: string; addressed: (text: string) => string } | undefined;
    const rig: PlatformRig = {
      adapter,
      chat: `discord:${thread.id}`,
      botTexts: chat.botTexts,
      async say(place, text) {
        const said = (channelId: string, addressed: (t: string) => string) => {
          lastSaid = {
            id: fake.userMessage({ channelId, author: alice, content: addressed(text) }).id,
            addressed,
          };
          return lastSaid.id;
        };
        if (place === 'direct message') {
          const dm = fake.dmChannel(alice);
          said(dm.id, (t) => t);
          return channel(fake, dm.id);
        }
        if (place === 'thread the bot opened') {
          said(thread.id, (t) => t);
          return chat;
        }
        // A thread started from a message has the message's id.
        return channel(
          fake,
          said(fake.generalId, (t) => `<@${fake.botUser.id}> ${t}`),
        );
      },
      async editLastSaid(text) {
        if (lastSaid) fake.editUserMessage(lastSaid.id, lastSaid.addressed(text));
      },
      buttonLabels: (messageId) =>
        (fake.messages.get(messageId)?.components ?? []).flatMap((row) =>
          row.components.map((b) => b.label ?? ''),
        ),
      async press(messageId, payload) {
        return answers(fake, fake.pressButton({ messageId, user: alice, customId: payload }));
      },
      async command(name, args) {
        // compact's one option is its focus.
        return answers(
          fake,
          fake.slashCommand({ channelId: thread.id, user: alice, name, options: { focus: args } }),
        );
      },
      rateLimitNext(scope, retryAfterMs) {
        fake.addFault({
          route: 'PATCH /channels/:id/messages/:id',
          status: 429,
          retryAfterMs,
          global: scope === 'global',
          times: 1,
        });
        return 'edit';
      },
      files: () =>
        fake
          .botMessages(thread.id)
          .flatMap((m) => (m.attachments ?? []).map((a) => ({ name: a.filename, size: a.size }))),
      typings: () =>
        fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${thread.id}/typing`).length,
      until: (check, what) => fake.waitFor(() => check(), what, 5000).then(() => undefined),
      async close() {
        await adapter.stop();
        await fake.close();
      },
    };
    return rig;
  },
};

contractSuite(discord);
