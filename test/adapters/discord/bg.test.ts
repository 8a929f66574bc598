/**
 * /bg on Discord through the ready bot: real discord.js against the fake
 * Discord, the real core and session, the real Anthropic SDK against its
 * fake. The background work runs in a new thread of the channel, and the
 * thread it was asked in gets one line linking to it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord/index.js';
import { botTexts, startScaledApp } from './app.js';
import { mention } from './helpers.js';

let fake: FakeDiscord;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeDiscord();
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-discord-bg-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

describe('Discord: /bg', () => {
  it('runs in a new thread of the channel and links it from the thread it was asked in', async () => {
    app = await startScaledApp(fake, anthropic, root);
    anthropic.enqueue({ text: 'Hello.' }, { text: 'Research done: 42.' });
    const opening = fake.userMessage({
      channelId: fake.generalId,
      author: fake.user('alice'),
      content: `${mention(fake)} hello there`,
    });
    const first = await fake.waitFor(() => fake.channels.get(opening.id), 'thread');
    await fake.waitFor(() => botTexts(fake, first.id).some((m) => m.content === 'Hello.'), 'first reply');
    fake.slashCommand({
      channelId: first.id,
      user: fake.user('alice'),
      name: 'bg',
      options: { prompt: 'research the answer' },
    });
    const done = await fake.waitFor(
      () => botTexts(fake, first.id).find((m) => m.content.startsWith('🧵 Background done')),
      'done line',
    );
    const threads = fake.threadsOf(fake.generalId);
    expect(threads).toHaveLength(2);
    const second = threads.find((t) => t.id !== first.id);
    expect(botTexts(fake, second?.id as string).map((m) => m.content)).toContain('Research done: 42.');
    expect(done.content).toContain('Research done: 42.');
    expect(done.content).toContain(second?.id);
    // A reply in the new thread continues the background session.
    anthropic.enqueue({ text: 'Going on.' });
    fake.userMessage({ channelId: second?.id as string, author: fake.user('alice'), content: 'go on' });
    await fake.waitFor(
      () => botTexts(fake, second?.id as string).some((m) => m.content === 'Going on.'),
      'follow-up',
    );
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('research the answer');
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).not.toContain('hello there');
  });
});
