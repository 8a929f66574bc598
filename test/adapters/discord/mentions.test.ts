/**
 * The model's mentions on Discord, as the people in the thread get them: the
 * ready bot (npm start wiring) against the fake Discord, which decides who a
 * message notifies from its content and its allowed_mentions as Discord
 * does. By default nobody; SWITCHBOARD_ALLOW_MENTIONS=users lets user
 * mentions through, `all` also roles, @everyone and @here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { botTexts, startApp } from './app.js';
import { mention } from './helpers.js';

let fake: FakeDiscord;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-discord-mentions-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

/** The model's reply mentions Bob, a role, and everyone; returns who its finished message pings. */
async function replyPings(env: Record<string, string>): Promise<{ pings: string[]; content: string }> {
  app = await startApp(fake, anthropic, root, env);
  const bob = fake.user('bob').id;
  anthropic.enqueue({ text: [`Ping <@${bob}> and <@&777>, `, 'also @everyone and @here. Done.'] });
  const opening = fake.userMessage({
    channelId: fake.generalId,
    author: fake.user('alice'),
    content: `${mention(fake)} who should I ask?`,
  });
  const thread = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
  const last = await fake.waitFor(() => {
    const m = botTexts(fake, thread.id).at(-1);
    return m?.content.endsWith('Done.') && m.components.length === 0 ? m : undefined;
  }, 'the finished reply');
  return { pings: [...last.pings].sort(), content: last.content };
}

describe('Discord: mentions the model writes', () => {
  it('by default ping nobody, and read as written', async () => {
    const { pings, content } = await replyPings({});
    expect(pings).toEqual([]);
    expect(content).toContain('@\u200beveryone');
    // Escaped as Discord shows it: the mention's own characters, as text.
    expect(content).toContain(`\\<@${fake.user('bob').id}\\>`);
  });

  it('users: a user mention pings that user; roles and @everyone do not', async () => {
    const { pings } = await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'users' });
    expect(pings).toEqual([`user:${fake.user('bob').id}`]);
  });

  it('all: roles, @everyone and @here ping too', async () => {
    const { pings } = await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'all' });
    expect(pings).toEqual(['everyone', 'everyone', 'role:777', `user:${fake.user('bob').id}`]);
  });
});
