/**
 * Slack HTTP mode behind a load balancer: two ready bots (child processes)
 * on one PostgreSQL schema, each with its own /slack/events endpoint, and the
 * test posting Slack's signed requests to either. DMs spread over both are
 * answered once each, and Slack's retry of an event (same event_id, new
 * signature) or a replay of the very same request that reaches the other
 * replica is dropped there through the shared delivery ids.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeSlack, SlackRequestSender, startFakeSlack } from '../fakes/slack/index.js';
import { type ChildBot, startChildBot } from '../reliability/child-bot.js';
import { SKIP_REASON, testDatabaseUrl, testSchemas } from '../store-postgres/database.js';
import { lastUserText } from './cluster.js';

const url = testDatabaseUrl();
const SECRET = 'replicas-slack-signing-secret';

if (!url)
  describe('Slack HTTP mode over replicas', () => {
    it.skip(SKIP_REASON, () => undefined);
  });

describe.skipIf(!url)('Slack HTTP mode over two replicas', () => {
  let slack: FakeSlack | undefined;
  let anthropic: FakeAnthropic | undefined;
  let root: string | undefined;
  const children: ChildBot[] = [];
  const schemas = url ? testSchemas(url) : undefined;

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await slack?.close();
    await anthropic?.close();
    await schemas?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('answers DMs spread over both replicas once each, and drops a retry or replay at the other replica', async () => {
    slack = await startFakeSlack();
    anthropic = await startFakeAnthropic();
    root = await mkdtemp(join(tmpdir(), 'switchboard-replicas-slack-'));
    const fake = slack;
    const schema = schemas?.name() ?? '';
    const users = ['U1', 'U2', 'U3', 'U4'];
    const env = (name: string) => ({
      ANTHROPIC_API_KEY: 'sk-ant-replicas-slack-0123456789',
      ANTHROPIC_BASE_URL: anthropic?.url ?? '',
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_PORT: '0',
      SLACK_API_URL: fake.apiUrl,
      SWITCHBOARD_DATABASE_URL: url ?? '',
      SWITCHBOARD_DATABASE_SCHEMA: schema,
      SWITCHBOARD_DATA_DIR: join(root ?? '', name, 'data'),
      SWITCHBOARD_WORKSPACE: join(root ?? '', 'workspace'),
      SWITCHBOARD_ALLOWED_USERS: users.map((u) => `slack:${u}`).join(','),
      SWITCHBOARD_LOG_LEVEL: 'debug',
    });
    const senders: SlackRequestSender[] = [];
    for (const name of ['a', 'b']) {
      const bot = startChildBot(env(name), root);
      children.push(bot);
      const started = JSON.parse(await bot.waitForLog(/Slack adapter started/)) as { url: string };
      await bot.waitForLog(/switchboard started/);
      senders.push(new SlackRequestSender(started.url, SECRET));
    }
    const [a, b] = senders as [SlackRequestSender, SlackRequestSender];
    const dm = (user: string, text: string, ts: string) =>
      fake.eventBody({ type: 'message', channel: `D${user}`, channel_type: 'im', user, text, ts });

    const texts: string[] = [];
    let ts = 1;
    for (const [i, user] of users.entries()) {
      for (const round of [1, 2]) {
        const text = `dm ${round} from ${user}`;
        const res = await ((i + round) % 2 ? a : b).event(dm(user, text, `100.${ts++}`));
        expect(res.status).toBe(200);
        texts.push(text);
      }
    }
    // A retry (same event_id, new signature) and a replay (the same request) of one event, to the other replica.
    const once = dm('U1', 'dm 3 from U1', `100.${ts++}`);
    const first = await a.event(once);
    expect((await b.replay(first.request)).status).toBe(200);
    expect((await b.event(once, { retryNum: 1 })).status).toBe(200);
    texts.push('dm 3 from U1');

    const replies = (text: string) =>
      fake
        .botMessages()
        .filter((m) => JSON.stringify(m).includes(`You said: [`) && JSON.stringify(m).includes(text));
    await fake.until(() => texts.every((t) => replies(t).length >= 1), 30_000, 'every DM answered');
    // Whichever replica recorded the event id second dropped its copy.
    await Promise.any(children.map((c) => c.waitForLog(/duplicate delivery ignored/)));
    for (const text of texts) {
      expect(anthropic.requests.filter((r) => lastUserText(r).endsWith(text))).toHaveLength(1);
      expect(replies(text)).toHaveLength(1);
    }
    const turns = children.map((c) => c.lines.filter((l) => l.includes('"turn started"')).length);
    expect(turns.every((n) => n > 0)).toBe(true);
  }, 120_000);
});
