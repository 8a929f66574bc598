/**
 * /bg on Slack through the ready bot: real Bolt over Socket Mode against the
 * fake Slack, the real core and session, the real Anthropic SDK against its
 * fake. The background work runs in a new thread of the channel and the
 * thread it was asked in gets one line linking to it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeSlack, startFakeSlack, visibleText } from '../../fakes/slack/index.js';
import { startSlackApp } from './app.js';

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-bg-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

describe('Slack: /bg', () => {
  it('runs in a new thread of the channel and links it from the thread it was asked in', async () => {
    app = await startSlackApp(fake, anthropic, root);
    anthropic.enqueue({ text: 'Hello.' }, { text: 'Research done: 42.' });
    const { ts } = await fake.userMessage({
      channel: 'C1',
      user: 'U1',
      text: `<@${fake.botUserId}> hello there`,
    });
    await fake.until(() => fake.botTexts('C1', ts).includes('Hello.'), 10_000, 'first reply');
    await fake.userMessage({ channel: 'C1', user: 'U1', text: '!bg research the answer', threadTs: ts });
    await fake.until(
      () => fake.botTexts('C1', ts).some((t) => t.startsWith('🧵 Background done')),
      10_000,
      'done line',
    );
    // A new top-level message opened the background thread; the reply is in it.
    const opener = fake.botMessages('C1').find((m) => m.threadTs === undefined && m.ts !== ts);
    expect(opener && visibleText(opener)).toBe('🧵 Background: research the answer');
    const thread = opener?.ts as string;
    await fake.until(() => fake.botTexts('C1', thread).includes('Research done: 42.'), 10_000, 'bg reply');
    const line = fake.botTexts('C1', ts).find((t) => t.startsWith('🧵 Background done')) as string;
    expect(line).toContain('Research done: 42.');
    expect(line).toContain(`/archives/C1/p${thread.replace('.', '')}`);
    // A reply in the new thread continues the background session.
    anthropic.enqueue({ text: 'Going on.' });
    await fake.userMessage({ channel: 'C1', user: 'U1', text: 'go on', threadTs: thread });
    await fake.until(() => fake.botTexts('C1', thread).includes('Going on.'), 10_000, 'follow-up');
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).toContain('research the answer');
    expect(JSON.stringify(anthropic.requests.at(-1).messages)).not.toContain('hello there');
  });
});
