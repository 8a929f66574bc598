/**
 * The model's mentions on Slack, as the people in the channel get them: the
 * ready bot (npm start wiring) over Socket Mode against the fake Slack, whose
 * `slackPings` decides who a message notifies as Slack does. By default
 * nobody is pinged, through a chat stream and through edited messages alike;
 * SWITCHBOARD_ALLOW_MENTIONS=users lets user mentions through, `all` also
 * the channel-wide ones.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { buttonsOf, type FakeSlack, startFakeSlack, visibleText } from '../../fakes/slack/index.js';
import { slackPings } from '../../fakes/slack/mentions.js';
import { startSlackApp } from './app.js';

/** What the model writes: every kind of Slack mention, as tokens and as link targets. */
const REPLY = [
  'Heads up <!channel> and <!here>, also <!everyone|all>.',
  'Ask <!subteam^S1|devs> or <@U2>, see [this](!channel) and [him](@U2).',
  'Done.',
];

let fake: FakeSlack;
let anthropic: FakeAnthropic;
let root: string;
let app: RunningApp | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.state.users.set('U1', 'Alice');
  fake.state.users.set('U2', 'Bob');
  anthropic = await startFakeAnthropic();
  root = await mkdtemp(join(tmpdir(), 'switchboard-slack-mentions-'));
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.socket.waitForDisconnect();
  await fake.close();
  await anthropic.close();
  await rm(root, { recursive: true, force: true });
});

/** Streams the reply in a thread of C1 and returns the pings of the finished message and what it reads. */
async function replyPings(env: Record<string, string>): Promise<{ pings: string[]; text: string }> {
  app = await startSlackApp(fake, anthropic, root, env);
  // Small deltas, so tokens arrive cut in pieces as a model's would.
  const text = REPLY.join('\n\n');
  const deltas = text.match(/[\s\S]{1,5}/g) ?? [];
  anthropic.enqueue({ text: deltas, chunkDelayMs: 5 });
  const { ts } = await fake.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> who should I ask?' });
  await fake.until(
    () => {
      // Finished: the stream closed, or the edited message lost its Stop button.
      const last = fake.botMessages('C1', ts).at(-1);
      const done =
        last?.streamState === 'completed' || (!last?.streamState && buttonsOf(last?.blocks).length === 0);
      return !!last && done && visibleText(last).endsWith('Done.');
    },
    15_000,
    'the finished reply',
  );
  const messages = fake.botMessages('C1', ts);
  return {
    pings: [...new Set(messages.flatMap(slackPings))].sort(),
    text: messages.map(visibleText).join('\n'),
  };
}

describe('Slack: mentions the model writes', () => {
  it('by default ping nobody in a chat stream, and read as written', async () => {
    const { pings, text } = await replyPings({});
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
    expect(pings).toEqual([]);
    for (const word of ['channel', 'here', 'everyone|all', 'subteam^S1|devs', '@U2'])
      expect(text).toContain(word);
    // Every stream update showed a prefix of the next: nothing was taken back.
    const history = fake.botMessages('C1').at(-1)?.history ?? [];
    for (let i = 1; i < history.length; i++) expect(history[i]!.startsWith(history[i - 1]!)).toBe(true);
  });

  it('by default ping nobody in edited messages either (no chat streams)', async () => {
    fake.streaming = 'unknown_method';
    const { pings, text } = await replyPings({});
    expect(fake.callsOf('chat.update').length + fake.callsOf('chat.postMessage').length).toBeGreaterThan(0);
    expect(pings).toEqual([]);
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('users: a user mention pings that user, and nobody else is pinged', async () => {
    expect((await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'users' })).pings).toEqual(['@U2']);
  });

  it('users: the same through edited messages', async () => {
    fake.streaming = 'unknown_method';
    expect((await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'users' })).pings).toEqual(['@U2']);
  });

  it('all: the channel-wide mentions ping too', async () => {
    const { pings } = await replyPings({ SWITCHBOARD_ALLOW_MENTIONS: 'all' });
    expect(pings).toEqual(['!channel', '!everyone', '!here', '!subteam^S1', '@U2']);
  });
});
