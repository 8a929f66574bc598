/**
 * A library user's own discord.js client with switchboard inside it, built
 * only from the public entry points (`switchboard`, `switchboard/discord`)
 * as the adapter's README shows, against the fake Discord and the fake
 * Messages API: the user logs their client in, handles their own `!ping`
 * and `/weather`, and the adapter joins that client instead of logging in a
 * second one. Stopping the bot leaves the user's client connected.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Events, GatewayIntentBits, Routes } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import {
  createDiscordAdapter,
  REQUIRED_INTENTS,
  REQUIRED_PARTIALS,
} from '../../../adapters/discord/index.js';
import { discordMarkdown } from '../../../adapters/discord/markdown.js';
import {
  AnthropicProvider,
  type Bot,
  createBot,
  createBotStateStore,
  createSessionFactory,
  createUserSessionStore,
} from '../../../src/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { botTexts } from './app.js';
import { mention } from './helpers.js';

let fake: FakeDiscord | undefined;
let anthropic: FakeAnthropic | undefined;
let client: Client | undefined;
let agent: Bot | undefined;
let root: string | undefined;

afterEach(async () => {
  await agent?.stop();
  await client?.destroy();
  await fake?.close();
  await anthropic?.close();
  if (root) await rm(root, { recursive: true, force: true });
  fake = anthropic = client = agent = root = undefined;
});

it('joins the user’s own client: their handlers keep working, one login, and stop leaves it connected', async () => {
  fake = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'sb-own-client-'));

  // --- as in the README ---
  client = new Client({
    intents: [...REQUIRED_INTENTS],
    partials: [...REQUIRED_PARTIALS],
    rest: { api: fake.apiUrl, retries: 0 },
  });
  client.on(Events.MessageCreate, async (m) => {
    if (m.content === '!ping') await m.channel.send('pong');
  });
  client.on(Events.InteractionCreate, async (i) => {
    if (i.isChatInputCommand() && i.commandName === 'weather') await i.reply('sunny');
  });
  agent = createBot({
    adapters: [createDiscordAdapter({ client })],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({ apiKey: 'sk-ant-own-client-0123456789', baseURL: anthropic.url }),
      sessionStore: createUserSessionStore(join(root, 'data', 'sessions')),
      workspace: join(root, 'workspace'),
    }),
    stores: { state: createBotStateStore(join(root, 'data')) },
    access: { allowedUsers: [`discord:${fake.user('alice').id}`] },
  });
  await client.login(fake.token);
  await agent.start();
  // --- end ---

  const alice = fake.user('alice');
  fake.userMessage({ channelId: fake.generalId, author: alice, content: '!ping' });
  await fake.waitFor(
    () => botTexts(fake as FakeDiscord, fake?.generalId ?? '').some((m) => m.content === 'pong'),
    'pong',
  );

  const weather = fake.slashCommand({ channelId: fake.generalId, user: alice, name: 'weather' });
  await fake.waitFor(() => (weather.callbacks.length > 0 ? true : undefined), '/weather answered');

  const opening = fake.userMessage({
    channelId: fake.generalId,
    author: alice,
    content: `${mention(fake)} hello from my server`,
  });
  const thread = await fake.waitFor(() => fake?.channels.get(opening.id), 'thread');
  await fake.waitFor(
    () =>
      botTexts(fake as FakeDiscord, thread.id).find((m) =>
        /^You said: .*hello from my server$/.test(m.content),
      ),
    'the agent’s reply',
  );

  // The user's command was answered once, by the user; the adapter registered no commands over theirs.
  expect(weather.callbacks).toEqual([4]);
  expect(fake.calls.filter((c) => c.method === 'PUT' && c.route.includes('/commands'))).toEqual([]);
  // One gateway login: the user's.
  expect(fake.calls.filter((c) => c.route === '/gateway/bot')).toHaveLength(1);

  await agent.stop();
  agent = undefined;
  expect(client.isReady()).toBe(true);
});

it('refuses a client without the intents it reads, naming them', () => {
  const bare = new Client({ intents: [GatewayIntentBits.Guilds] });
  expect(() => createDiscordAdapter({ client: bare })).toThrow(
    /lacks the intents GatewayIntentBits\.GuildMessages, GatewayIntentBits\.MessageContent, GatewayIntentBits\.DirectMessages and partials Partials\.Channel, Partials\.Message/,
  );
  expect(() => createDiscordAdapter({})).toThrow(/either `token`.*or `client`/);
});

it('on the user’s own client the adapter’s calls report their 429s, while the user’s own calls still wait them out', async () => {
  fake = await startFakeDiscord();
  client = new Client({
    intents: [...REQUIRED_INTENTS],
    partials: [...REQUIRED_PARTIALS],
    rest: { api: fake.apiUrl, retries: 0 },
  });
  const adapter = createDiscordAdapter({ client });
  await client.login(fake.token);
  await adapter.start(async () => {});
  const thread = fake.createThread(fake.generalId, 'rate limits', undefined, 11, fake.botUser.id);
  fake.addFault({ route: 'POST /channels/:id/messages', status: 429, retryAfterMs: 200, times: 2 });

  await expect(
    adapter.send(`discord:${thread.id}`, { text: 'from the agent', format: discordMarkdown }),
  ).rejects.toMatchObject({ code: 'RATE_LIMITED', scope: 'chat' });
  // The user's call meets the second 429 and discord.js, as the user configured it, waits and resends.
  await client.rest.post(Routes.channelMessages(thread.id), { body: { content: 'from the user' } });
  expect(fake.rateLimitedCalls).toHaveLength(2);
  expect(botTexts(fake, thread.id).map((m) => m.content)).toEqual(['from the user']);
  await adapter.stop();
});
