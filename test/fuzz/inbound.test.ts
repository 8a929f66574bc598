/**
 * Fuzzing what the platforms deliver, through each real SDK and adapter into
 * the real core: random Telegram updates (odd entities, missing fields,
 * unknown types, stray callbacks) polled from the fake Bot API; random Slack
 * event, slash-command and interaction payloads over Socket Mode; random
 * Discord MESSAGE_CREATE and INTERACTION_CREATE dispatches on the gateway.
 * Payloads keep the envelope each platform always sends and randomise the
 * rest. After each batch the bot must still answer an ordinary message, and
 * no rejection may go unhandled.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startApp as startDiscordApp } from '../adapters/discord/app.js';
import { mention } from '../adapters/discord/helpers.js';
import { startSlackApp } from '../adapters/slack/app.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { messageUpdate } from '../fakes/telegram/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startTelegramWorld, watchUnhandled } from '../reliability/telegram-world.js';

const cleanups = useCleanups();

const SEED = 20_261_130;
const BATCH = 100;
const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ maxLength: 30, unit: 'binary' }),
  fc.constantFrom(
    '',
    '/',
    '/start',
    '/compact@other_bot x',
    '/resume ../../etc',
    '@switchboard_bot',
    '\u0000',
  ),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

describe('fuzz: inbound platform payloads', () => {
  it('Telegram: random updates through grammy and the adapter', async () => {
    const unhandled = watchUnhandled();
    const w = await startTelegramWorld({ factor: 10, allowed: [51, 52] });
    cleanups.push(() => w.close());
    const user = fc.record({
      id: fc.constantFrom(51, 52, 59),
      is_bot: fc.boolean(),
      first_name: fc.string({ maxLength: 10 }),
    });
    const chat = fc.oneof(
      fc.record({
        id: fc.constantFrom(51, 52, 59),
        type: fc.constant('private'),
        first_name: fc.constant('U'),
      }),
      fc.record({
        id: fc.constantFrom(-1001, -1002),
        type: fc.constantFrom('group', 'supergroup', 'channel'),
        title: fc.constant('T'),
        is_forum: maybe(fc.boolean()),
      }),
    );
    const entity = fc.record({
      type: fc.constantFrom('bot_command', 'mention', 'text_mention', 'bold', 'url', 'code', 'pre'),
      offset: fc.integer({ min: -2, max: 80 }),
      length: fc.integer({ min: 0, max: 80 }),
    });
    const message = fc.record({
      message_id: fc.integer({ min: 1, max: 5000 }),
      date: fc.constant(1_700_000_000),
      chat,
      from: maybe(user),
      text: maybe(text),
      caption: maybe(text),
      entities: maybe(fc.array(entity, { maxLength: 4 })),
      message_thread_id: maybe(fc.integer({ min: 1, max: 9 })),
      photo: maybe(fc.constant([] as unknown[])),
      reply_to_message: maybe(
        fc.record({
          message_id: fc.integer({ min: 1, max: 9 }),
          date: fc.constant(1),
          chat,
          text: maybe(text),
        }),
      ),
    });
    const update = fc.oneof(
      fc.record({ message }),
      fc.record({ edited_message: message }),
      fc.record({
        callback_query: fc.record({
          id: fc.string({ minLength: 1, maxLength: 8 }),
          from: user,
          chat_instance: fc.constant('ci'),
          data: maybe(text),
          message: maybe(message),
        }),
      }),
      fc.record({
        stopped_message_generation: fc.record({ chat, draft_id: fc.integer({ min: -5, max: 99 }) }),
      }),
      fc.record({ channel_post: message }),
      fc.record({ my_chat_member: fc.constant({}) }),
    );
    for (const u of fc.sample(update, { numRuns: BATCH, seed: SEED })) {
      // The fake stores pushed messages, so each carries the chat it needs.
      w.telegram.pushUpdate(u as never);
    }
    w.telegram.pushUpdate(messageUpdate({ chatId: 51, user: { id: 51 } }, 'still alive?'));
    await w.telegram.waitFor(() => w.texts(51).some((t) => t.includes('still alive?')), 20_000);
    await w.bot.idle();
    expect(w.telegram.state.queue.filter((u) => u.update_id <= BATCH)).toEqual([]);
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  }, 40_000);

  it('Slack: random events, slash commands and interactions over Socket Mode', async () => {
    const unhandled = watchUnhandled();
    const slack = await startFakeSlack();
    const anthropic = await startFakeAnthropic();
    const root = await mkdtemp(join(tmpdir(), 'switchboard-fuzz-'));
    cleanups.push(
      () => slack.close(),
      () => anthropic.close(),
      () => rm(root, { recursive: true, force: true }),
    );
    const app = await startSlackApp(slack, anthropic, root);
    cleanups.push(async () => {
      await app.stop();
      await slack.socket.waitForDisconnect();
    });
    const userId = fc.constantFrom('U1', 'U2', 'U9', 'UBOT', '');
    const channel = fc.constantFrom('C1', 'D1', 'G1', '');
    const ts = fc.constantFrom('1.1', '2.2', '', 'x', '99999999999.999999');
    const event = fc.record({
      type: fc.constantFrom('message', 'app_mention', 'reaction_added', 'member_joined_channel', 'bogus'),
      subtype: maybe(
        fc.constantFrom(
          'message_changed',
          'message_deleted',
          'bot_message',
          'file_share',
          'thread_broadcast',
        ),
      ),
      channel,
      channel_type: maybe(fc.constantFrom('im', 'channel', 'group', 'mpim')),
      user: maybe(userId),
      bot_id: maybe(fc.constant('BBOT')),
      text: maybe(text),
      ts,
      thread_ts: maybe(ts),
      message: maybe(fc.record({ type: fc.constant('message'), user: maybe(userId), text: maybe(text), ts })),
      files: maybe(fc.constant([{ id: 'F1', name: 'x', mimetype: 'image/png' }])),
    });
    const command = fc.record({
      // Slack delivers only the commands an app declared: ours is /switchboard.
      command: fc.constant('/switchboard'),
      text,
      user_id: userId,
      channel_id: channel,
      thread_ts: maybe(ts),
      response_url: fc.constant(`${slack.url}/response/fuzz`),
      trigger_id: fc.constant('t'),
    });
    const interaction = fc.record({
      // Slack only sends an app interactions on components it made: our buttons' action ids.
      type: fc.constant('block_actions'),
      user: fc.record({ id: userId }),
      channel: maybe(fc.record({ id: channel })),
      container: maybe(
        fc.record({
          type: fc.constant('message'),
          message_ts: ts,
          channel_id: channel,
          thread_ts: maybe(ts),
        }),
      ),
      message: maybe(fc.record({ ts, thread_ts: maybe(ts), text: maybe(text) })),
      actions: fc.array(
        fc.record({
          action_id: fc.stringMatching(/^sb:[0-9]:[0-9]$/),
          value: maybe(text),
          type: fc.constant('button'),
        }),
        { minLength: 1, maxLength: 2 },
      ),
      response_url: fc.constant(`${slack.url}/response/fuzz`),
    });
    const delivery = fc.oneof(
      event.map((e) => ['events_api', slack.eventBody(e as never)] as const),
      command.map((c) => ['slash_commands', c] as const),
      interaction.map((i) => ['interactive', i] as const),
    );
    for (const [kind, body] of fc.sample(delivery, { numRuns: BATCH, seed: SEED })) {
      await slack.deliver(kind, body as never);
    }
    const { ts: alive } = await slack.userMessage({ channel: 'D7', user: 'U1', text: 'still alive?' });
    await slack.until(
      () => slack.botTexts('D7', alive).some((t) => t.includes('still alive?')),
      15_000,
      'answer',
    );
    await app.bot.idle();
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  }, 40_000);

  it('Discord: random message and interaction dispatches on the gateway', async () => {
    const unhandled = watchUnhandled();
    const discord = await startFakeDiscord();
    const anthropic = await startFakeAnthropic();
    const root = await mkdtemp(join(tmpdir(), 'switchboard-fuzz-'));
    cleanups.push(
      () => discord.close(),
      () => anthropic.close(),
      () => rm(root, { recursive: true, force: true }),
    );
    const app = await startDiscordApp(discord, anthropic, root);
    cleanups.push(() => app.stop());
    const alice = discord.user('alice');
    const eve = discord.user('eve');
    // Another bot (its own id: the gateway never sends a person's id with bot: true).
    const author = fc.constantFrom(alice, eve, { ...discord.user('otherbot'), bot: true });
    const channelId = fc.constantFrom(discord.generalId, '1', '999999999999999999');
    const snow = fc.bigInt({ min: 1n, max: 2n ** 62n }).map(String);
    const content = fc.oneof(
      text,
      text.map((t) => `${mention(discord)} ${t}`),
    );
    const messageCreate = fc.record({
      id: snow,
      channel_id: channelId,
      guild_id: fc.constant(discord.guildId),
      author,
      content,
      timestamp: fc.constant(new Date(0).toISOString()),
      type: fc.constantFrom(0, 19, 7),
      mentions: fc.constant([]),
      attachments: fc.constant([]),
      embeds: fc.constant([]),
      mention_roles: fc.constant([]),
      pinned: fc.constant(false),
      tts: fc.constant(false),
      mention_everyone: fc.boolean(),
    });
    const common = {
      id: snow,
      application_id: fc.constant(discord.applicationId),
      token: fc.constant('itoken-fuzz'),
      version: fc.constant(1),
      channel_id: fc.constant(discord.generalId),
      guild_id: fc.constant(discord.guildId),
      member: fc.constant({
        user: alice,
        roles: [],
        joined_at: new Date(0).toISOString(),
        deaf: false,
        mute: false,
        flags: 0,
      }),
      app_permissions: fc.constant('2147483647'),
      locale: fc.constant('en-US'),
      guild_locale: fc.constant('en-US'),
      entitlements: fc.constant([]),
      authorizing_integration_owners: fc.constant({}),
      context: fc.constant(0),
      attachment_size_limit: fc.constant(8_388_608),
    };
    const slashCommand = fc.record({
      ...common,
      type: fc.constant(2),
      data: fc.record({
        id: snow,
        name: fc.constantFrom('ask', 'new', 'compact', 'resume', 'mode', 'bogus'),
        type: fc.constant(1),
        options: maybe(
          fc.array(fc.record({ name: fc.string({ maxLength: 8 }), type: fc.constant(3), value: text }), {
            maxLength: 2,
          }),
        ),
      }),
    });
    // A button press always carries the message the button is on (one of the bot's).
    const buttonPress = fc.record({
      ...common,
      type: fc.constant(3),
      data: fc.record({
        custom_id: fc.oneof(text, fc.stringMatching(/^sb:[a-z]:[0-9a-z]{1,12}$/)),
        component_type: fc.constant(2),
      }),
      message: snow.map((id) => ({
        id,
        channel_id: discord.generalId,
        author: discord.botUser,
        content: 'prompt',
        timestamp: new Date(0).toISOString(),
        type: 0,
        mentions: [],
        attachments: [],
        embeds: [],
        mention_roles: [],
        pinned: false,
        tts: false,
        mention_everyone: false,
        components: [],
      })),
    });
    const interactionCreate = fc.oneof(slashCommand, buttonPress);
    const dispatch = fc.oneof(
      messageCreate.map((d) => ['MESSAGE_CREATE', d] as const),
      interactionCreate.map((d) => ['INTERACTION_CREATE', d] as const),
    );
    for (const [t, d] of fc.sample(dispatch, { numRuns: BATCH, seed: SEED })) discord.gateway.dispatch(t, d);
    const opening = discord.userMessage({
      channelId: discord.generalId,
      author: alice,
      content: `${mention(discord)} still alive?`,
    });
    await discord.waitFor(
      () =>
        [...discord.messages.values()].find(
          (m) =>
            m.author.id === discord.botUser.id &&
            m.content.includes('still alive?') &&
            m.channel_id === opening.id,
        ),
      'answer after the fuzz',
      20_000,
    );
    await app.bot.idle();
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  }, 40_000);
});
