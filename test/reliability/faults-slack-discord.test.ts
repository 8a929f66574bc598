import { describe, expect, it } from 'vitest';
import { botTexts, startScaledApp } from '../adapters/discord/app.js';
import { mention } from '../adapters/discord/helpers.js';
import { startSlackApp } from '../adapters/slack/app.js';
import { startFakeAnthropic } from '../fakes/anthropic.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { faultyModel, type ModelFault } from '../fakes/faults.js';
import { startFakeSlack, visibleText } from '../fakes/slack/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { watchUnhandled } from './telegram-world.js';

const cleanups = useCleanups();

const THREADS = 8;
const reply = (key: string) => `Answer for ${key}: all is well.`;
const keyOf = (body: { messages: Array<{ content: unknown }> }) =>
  /question \d+/.exec(JSON.stringify(body.messages.at(-1)?.content ?? ''))?.[0];
/** Threads 2 and 5 fail mid-reply; thread 3's first request is overloaded (the SDK retries it). */
const faultOf = (key: string): ModelFault =>
  (({ 'question 2': 'mid-stream-error', 'question 5': 'dropped', 'question 3': 'overloaded-once' })[key] as
    | ModelFault
    | undefined) ?? 'none';

const tempRoot = () => cleanups.tempRoot('faults');

/** Checks one thread's messages: the reply once, or (for a model fault) one clear error and no reply. */
function checkThread(key: string, texts: string[]): 'full' | 'error' {
  const full = texts.filter((t) => t.trim() === reply(key)).length;
  const errors = texts.filter((t) => t.includes('⚠️'));
  if (faultOf(key) === 'mid-stream-error' || faultOf(key) === 'dropped') {
    expect(full, `${key}: ${JSON.stringify(texts)}`).toBe(0);
    expect(errors.length, `${key}: ${JSON.stringify(texts)}`).toBe(1);
    return 'error';
  }
  expect(full, `${key}: ${JSON.stringify(texts)}`).toBe(1);
  expect(errors, key).toEqual([]);
  return 'full';
}

describe('faults on Slack and Discord', () => {
  it('Slack: threads under injected Web API faults end with their reply once or a clear error', async () => {
    const unhandled = watchUnhandled();
    const slack = await startFakeSlack();
    const anthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => slack.close(),
      () => anthropic.close(),
    );
    anthropic.setDefault(faultyModel({ keyOf, faultOf, reply }));
    const app = await startSlackApp(slack, anthropic, root);
    cleanups.push(async () => {
      await app.stop();
      await slack.socket.waitForDisconnect();
    });
    const writes = /^chat\.(postMessage|update|startStream|appendStream|stopStream)$/;
    // One of each kind for sure (the first matching calls), then ~10% at random.
    slack.faults.push(
      { method: 'chat.stopStream', status: 500, times: 1 },
      { method: 'chat.stopStream', status: 429, retryAfterSec: 1, times: 1 },
      { method: 'chat.startStream', drop: true, times: 1 },
      { method: 'chat.postMessage', delayMs: 300, times: 1 },
      { method: writes, status: 429, retryAfterSec: 1, share: 0.03, times: Number.POSITIVE_INFINITY },
      { method: writes, status: 500, share: 0.03, times: Number.POSITIVE_INFINITY },
      { method: writes, delayMs: 300, share: 0.03, times: Number.POSITIVE_INFINITY },
      { method: writes, drop: true, share: 0.02, times: Number.POSITIVE_INFINITY },
    );
    const threads: string[] = [];
    for (let i = 1; i <= THREADS; i++) {
      const { ts } = await slack.userMessage({ channel: 'C1', user: 'U1', text: `<@UBOT> question ${i}` });
      threads.push(ts);
    }
    const texts = (ts: string) =>
      slack
        .botMessages('C1', ts)
        .filter((m) => m.streamState !== 'streaming')
        .map(visibleText);
    const ended = (ts: string, i: number) =>
      texts(ts).some((t) => t.trim() === reply(`question ${i + 1}`) || t.includes('⚠️'));
    await slack.until(() => threads.every(ended), 45_000, 'every thread ended');
    await app.bot.idle();
    const outcomes = threads.map((ts, i) => checkThread(`question ${i + 1}`, texts(ts)));
    console.log(
      `[faults:slack] ${THREADS} threads: ${outcomes.filter((o) => o === 'full').length} full, ` +
        `${outcomes.filter((o) => o === 'error').length} clear errors; Web API calls ${slack.calls.length}, ` +
        `faulted ${slack.calls.filter((c) => c.status !== 200).length}`,
    );
    // The run was faulted. How many faults land depends on which calls a run makes (a reply that
    // ends before its stream opens makes no chat.startStream), so only "some" is certain; the
    // outcomes above are what the test is about.
    expect(slack.calls.filter((c) => c.status !== 200).length).toBeGreaterThan(0);
    slack.faults.length = 0;
    const { ts } = await slack.userMessage({ channel: 'C1', user: 'U1', text: '<@UBOT> question 99' });
    await slack.until(() => texts(ts).some((t) => t.trim() === reply('question 99')), 15_000, 'next answer');
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  }, 60_000);

  // Seeds 3 and 4 hung most runs before a reply that finished while its first
  // message was still being sent (discord.js retrying a 502, waiting out a 429)
  // kept its Stop button: the outbox cached the final form before the send
  // recorded the button. Which calls a fault hits depends on timing too, so
  // several seeds run.
  it.each([1, 3, 4])(
    'Discord: threads under injected REST faults end with their reply once or a clear error (seed %i)',
    async (seed) => {
      await discordFaultRun(seed);
    },
    60_000,
  );

  // discord.js retries a 5xx and waits out a 429 inside one call: the reply below is
  // complete long before its first message exists, and must still end without its Stop button.
  it('Discord: a reply that finishes while its first message is still being sent loses its Stop button', async () => {
    const discord = await startFakeDiscord();
    const anthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => discord.close(),
      () => anthropic.close(),
    );
    const app = await startScaledApp(discord, anthropic, root);
    cleanups.push(() => app.stop());
    anthropic.setDefault(() => ({ text: ['All is ', 'well.'], chunkDelayMs: 5 }));
    discord.addFault({ route: 'POST /channels/:id/messages', status: 502, times: 1 });
    discord.addFault({ route: 'POST /channels/:id/messages', status: 429, retryAfterMs: 1000, times: 1 });
    const opening = discord.userMessage({
      channelId: discord.generalId,
      author: discord.user('alice'),
      content: `${mention(discord)} how is it?`,
    });
    const answer = await discord.waitFor(
      () =>
        botTexts(discord, opening.id).find((m) => m.content === 'All is well.' && m.components.length === 0),
      'the answer without its Stop button',
    );
    await app.bot.idle();
    expect(botTexts(discord, opening.id)).toEqual([answer]);
    expect(discord.calls.filter((c) => c.route === '/channels/:id/messages').map((c) => c.status)).toEqual([
      502, 429, 200,
    ]);
  });

  // A dropped connection while opening the thread is retried, never blamed on permissions.
  it('Discord: a transient failure to open a thread is not blamed on permissions', async () => {
    const discord = await startFakeDiscord();
    const anthropic = await startFakeAnthropic();
    const root = await tempRoot();
    cleanups.push(
      () => discord.close(),
      () => anthropic.close(),
    );
    const app = await startScaledApp(discord, anthropic, root);
    cleanups.push(() => app.stop());
    discord.addFault({ route: 'POST /channels/:id/messages/:id/threads', drop: true, times: 1 });
    const opening = discord.userMessage({
      channelId: discord.generalId,
      author: discord.user('alice'),
      content: `${mention(discord)} hello`,
    });
    const answer = await discord.waitFor(
      () =>
        discord.botMessages(discord.generalId).find((m) => m.message_reference?.message_id === opening.id) ??
        botTexts(discord, opening.id)[0],
      'an answer',
    );
    expect(answer.content).not.toMatch(/permission/i);
  });
});

/** One Discord fault run: faults picked with `seed`. */
async function discordFaultRun(seed: number): Promise<void> {
  const unhandled = watchUnhandled();
  const discord = await startFakeDiscord({ seed });
  const anthropic = await startFakeAnthropic();
  const root = await tempRoot();
  cleanups.push(
    () => discord.close(),
    () => anthropic.close(),
  );
  anthropic.setDefault(faultyModel({ keyOf, faultOf, reply }));
  const app = await startScaledApp(discord, anthropic, root);
  cleanups.push(() => app.stop());
  const writes = /^(POST|PATCH) \/channels\/:id\/messages/;
  // One of each kind for sure (the first matching calls), then ~10% at random.
  discord.addFault({ route: 'PATCH /channels/:id/messages/:id', status: 429, retryAfterMs: 200, times: 1 });
  discord.addFault({ route: 'POST /channels/:id/messages', status: 502, times: 1 });
  discord.addFault({ route: 'PATCH /channels/:id/messages/:id', drop: true, times: 1 });
  discord.addFault({ route: writes, status: 429, retryAfterMs: 200, share: 0.03 });
  discord.addFault({ route: writes, status: 502, share: 0.03 });
  discord.addFault({ route: writes, delayMs: 300, share: 0.03 });
  discord.addFault({ route: writes, drop: true, share: 0.02 });
  const alice = discord.user('alice');
  const openings: Array<{ id: string }> = [];
  for (let i = 1; i <= THREADS; i++) {
    openings.push(
      discord.userMessage({
        channelId: discord.generalId,
        author: alice,
        content: `${mention(discord)} question ${i}`,
      }),
    );
  }
  const texts = (threadId: string) =>
    botTexts(discord, threadId)
      .filter((m) => m.components.length === 0)
      .map((m) => m.content);
  // When opening the thread itself fails, the answer is a reply to the mention in the channel.
  const refusal = (openingId: string) =>
    discord.botMessages(discord.generalId).find((m) => m.message_reference?.message_id === openingId);
  const ended = (threadId: string, i: number) =>
    refusal(threadId) !== undefined ||
    texts(threadId).some((t) => t.trim() === reply(`question ${i + 1}`) || t.includes('⚠️'));
  await discord.waitFor(() => openings.every((o, i) => ended(o.id, i)), 'every thread ended', 30_000);
  await app.bot.idle();
  expect(discord.calls.filter((c) => c.status >= 400 || c.status <= 0).length).toBeGreaterThanOrEqual(3);
  const outcomes = openings.map((o, i) => {
    if (!refusal(o.id)) return checkThread(`question ${i + 1}`, texts(o.id));
    // No thread, so no turn ran: the person was told, once, in the channel.
    expect(texts(o.id)).toEqual([]);
    expect(discord.calls.some((c) => c.route.includes('threads') && c.status !== 201)).toBe(true);
    return 'refused';
  });
  console.log(
    `[faults:discord] ${THREADS} threads: ${outcomes.filter((o) => o === 'full').length} full, ` +
      `${outcomes.filter((o) => o === 'error').length} clear errors, ` +
      `${outcomes.filter((o) => o === 'refused').length} refused (thread not opened); REST calls ` +
      `${discord.calls.length}, faulted ${discord.calls.filter((c) => c.status >= 400 || c.status <= 0).length}`,
  );
  unhandled.stop();
  expect(unhandled.errors).toEqual([]);
}
