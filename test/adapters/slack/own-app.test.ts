/**
 * A library user's own Bolt App with switchboard inside it, built only from
 * the public entry points (`switchboard`, `switchboard/slack`) as the
 * adapter's README shows, against the fake Slack (Socket Mode) and the fake
 * Messages API: the user's App has its own `ping` listener and is started
 * by the user; the adapter adds its listeners to it instead of opening a
 * second socket, and the agent answers a mention in its thread.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from '@slack/bolt';
import { afterEach, expect, it } from 'vitest';
import { createSlackAdapter } from '../../../adapters/slack/index.js';
import {
  AnthropicProvider,
  type Bot,
  createBot,
  createBotStateStore,
  createSessionFactory,
  createUserSessionStore,
} from '../../../src/index.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeSlack, startFakeSlack } from '../../fakes/slack/index.js';

let fake: FakeSlack | undefined;
let anthropic: FakeAnthropic | undefined;
let app: App | undefined;
let agent: Bot | undefined;
let root: string | undefined;

afterEach(async () => {
  await agent?.stop();
  await app?.stop();
  if (app) await fake?.socket.waitForDisconnect();
  await fake?.close();
  await anthropic?.close();
  if (root) await rm(root, { recursive: true, force: true });
  fake = anthropic = app = agent = root = undefined;
});

it('joins the user’s own App: their listener keeps working, one socket, the agent answers in its thread', async () => {
  fake = await startFakeSlack();
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'sb-own-app-'));

  // --- as in the README ---
  app = new App({
    token: fake.botToken,
    appToken: fake.appToken,
    socketMode: true,
    deferInitialization: true,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } },
  });
  app.message('ping', async ({ say }) => {
    await say('pong');
  });
  agent = createBot({
    adapters: [createSlackAdapter({ app })],
    sessions: createSessionFactory({
      provider: new AnthropicProvider({ apiKey: 'sk-ant-own-app-0123456789', baseURL: anthropic.url }),
      sessionStore: createUserSessionStore(join(root, 'data', 'sessions')),
      workspace: join(root, 'workspace'),
    }),
    stores: { state: createBotStateStore(join(root, 'data')) },
    access: { allowedUsers: ['slack:U1'] },
  });
  await app.init();
  await agent.start();
  await app.start();
  // --- end ---
  await fake.socket.waitForConnection();

  await fake.userMessage({ channel: 'C1', user: 'U1', text: 'ping' });
  await fake.until(() => fake?.botMessages('C1').some((m) => m.text === 'pong') === true, 8000, 'pong');

  const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> hello from my app' });
  await fake.until(
    () => (fake?.botMessages('C1', ts) ?? []).some((m) => /^You said: .*hello from my app$/.test(m.text)),
    8000,
    'the agent’s reply in the thread',
  );
  // One Socket Mode connection: the user's App's.
  expect(fake.socket.connected).toBe(1);
  // One Socket Mode connection was opened: the user's App's.
  expect(JSON.stringify(anthropic.requests)).not.toMatch(/"ping"/);
});
