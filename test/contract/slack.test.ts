/**
 * The adapter contract for Slack: the real Bolt app and Web API client, in
 * Socket Mode, against the fake Slack. Sessions are threads; the outbound
 * parts run in a thread a person started in #C1.
 *
 * The fake's file limit is set to 1 MiB, as a workspace's administrators may
 * restrict it (Slack's own limit, 1 GB, cannot be pushed through a unit
 * test); the adapter's declared limit is checked against Slack's number.
 */
import { createSlackAdapter } from '../../adapters/slack/index.js';
import { slackMarkdown, slackMrkdwn } from '../../adapters/slack/markdown.js';
import { plain } from '../../src/bot/format/dialect.js';
import type { Clock } from '../../src/clock.js';
import {
  type Ack,
  buttonsOf,
  DEFAULT_LIMITS,
  type FakeSlack,
  startFakeSlack,
  visibleText,
} from '../fakes/slack/index.js';
import type { PlatformHarness, PlatformRig, Spot } from './harness.js';
import { contractSuite } from './suite.js';

const CHANNEL = 'C1';
const DM = 'D1';
const PERSON = 'U1';
/** Slack's deadline for acknowledging an interactive payload. */
const ACK_DEADLINE_MS = 3000;
const UPLOAD_LIMIT = 1024 * 1024;

/**
 * The one place the adapter is built, so a change of its option names is
 * made here once.
 */
function createAdapter(fake: FakeSlack, clock: Clock) {
  return createSlackAdapter({
    token: fake.botToken,
    appToken: fake.appToken,
    apiUrl: fake.apiUrl,
    retries: 0,
    clock,
  });
}

/** The bot's messages in one thread (or a whole DM) as a person sees them. */
function thread(fake: FakeSlack, channel: string, threadTs?: string): Spot {
  return { botTexts: () => fake.botMessages(channel, threadTs).map(visibleText) };
}

/** Resolves when Slack got the envelope's acknowledgement within its deadline; rejects otherwise. */
async function acknowledgedInTime(ack: Ack | undefined): Promise<void> {
  if (!ack) throw new Error('the envelope was never acknowledged');
  if (ack.latencyMs > ACK_DEADLINE_MS)
    throw new Error(`the envelope was acknowledged after ${Math.round(ack.latencyMs)} ms`);
}

/** The ephemeral answers `user` was shown in the channel, oldest first. */
function shownTo(fake: FakeSlack, user: string): string[] {
  return fake.state.ephemerals.filter((e) => e.user === user && e.channel === CHANNEL).map((e) => e.text);
}

const slack: PlatformHarness = {
  name: 'slack',
  places: ['channel (a mention starts a thread)', 'thread the bot is in', 'direct message'],
  limits: {
    messageLength: {
      value: DEFAULT_LIMITS.maxText,
      format: slackMrkdwn,
      docs: 'https://docs.slack.dev/reference/methods/chat.postMessage',
    },
    buttonPayloadBytes: {
      value: 2000,
      docs: 'https://docs.slack.dev/reference/block-kit/block-elements/button-element',
    },
    upload: {
      documented: {
        value: DEFAULT_LIMITS.maxUploadBytes,
        docs: 'https://docs.slack.dev/messaging/working-with-files',
      },
      enforced: UPLOAD_LIMIT,
      why: 'a workspace restriction stands in for the 1 GB limit',
    },
    ackDeadlineMs: {
      value: ACK_DEADLINE_MS,
      docs: 'https://docs.slack.dev/interactivity/handling-user-interaction#acknowledgment_response',
    },
    // While chat streams work a reply's updates are chat.appendStream calls, which the fake paces at 1 s.
    editIntervalMs: {
      value: DEFAULT_LIMITS.appendIntervalMs,
      docs: 'https://docs.slack.dev/reference/methods/chat.appendStream',
    },
    chatBudget: {
      value: DEFAULT_LIMITS.updateBudget,
      windowMs: DEFAULT_LIMITS.budgetWindowMs,
      docs: 'https://docs.slack.dev/apis/web-api/rate-limits',
    },
  },
  async start({ log, clock }) {
    // No spacing between two chat.update calls on one message: the parts edit a message twice in a
    // row to see what stays (the pace is the core's; capabilities are checked against Slack's numbers).
    const fake = await startFakeSlack({ limits: { maxUploadBytes: UPLOAD_LIMIT, updateIntervalMs: 0 } });
    // A thread a person started earlier: where the outbound parts run.
    const parentTs = fake.state.nextTs();
    fake.state.add({ channel: CHANNEL, ts: parentTs, user: PERSON, text: 'a question' });
    const adapter = createAdapter(fake, clock);
    try {
      await adapter.start(log.sink);
      await fake.socket.waitForConnection();
    } catch (err) {
      await adapter.stop().catch(() => undefined);
      await fake.close();
      throw err;
    }
    const chat = thread(fake, CHANNEL, parentTs);
    /** The message the person wrote last, and how it addressed the bot. */
    let lastSaid: { channel: string; ts: string; addressed: (text: string) => string } | undefined;
    const rig: PlatformRig = {
      adapter,
      chat: `slack:${CHANNEL}:${parentTs}`,
      botTexts: chat.botTexts,
      async say(place, text) {
        if (place === 'direct message') {
          const { ts } = await fake.userMessage({ channel: DM, user: PERSON, text });
          lastSaid = { channel: DM, ts, addressed: (t) => t };
          return thread(fake, DM);
        }
        if (place === 'thread the bot is in') {
          await adapter.send(rig.chat, { text: 'joined', format: plain });
          const { ts } = await fake.userMessage({ channel: CHANNEL, user: PERSON, text, threadTs: parentTs });
          lastSaid = { channel: CHANNEL, ts, addressed: (t) => t };
          return chat;
        }
        const addressed = (t: string) => `<@${fake.botUserId}> ${t}`;
        const { ts } = await fake.userMessage({ channel: CHANNEL, user: PERSON, text: addressed(text) });
        lastSaid = { channel: CHANNEL, ts, addressed };
        return thread(fake, CHANNEL, ts);
      },
      async editLastSaid(text) {
        if (lastSaid) await fake.editMessage(lastSaid.channel, lastSaid.ts, lastSaid.addressed(text));
      },
      async command(name, args) {
        const { ack } = await fake.slashCommand({
          channel: CHANNEL,
          user: PERSON,
          text: `${name} ${args}`,
          threadTs: parentTs,
        });
        return { acknowledged: () => acknowledgedInTime(ack), shown: () => shownTo(fake, PERSON) };
      },
      buttonLabels: (messageId) =>
        buttonsOf(fake.state.get(CHANNEL, messageId)?.blocks).map((b) => String(b.text?.text)),
      async press(messageId, payload) {
        const { ack } = await fake.pressButton({
          user: PERSON,
          channel: CHANNEL,
          messageTs: messageId,
          value: payload,
        });
        return { acknowledged: () => acknowledgedInTime(ack), shown: () => shownTo(fake, PERSON) };
      },
      rateLimitNext(scope, retryAfterMs) {
        // Slack limits chat.postMessage per channel and every other method per workspace
        // (https://docs.slack.dev/apis/web-api/rate-limits).
        const method = scope === 'chat' ? 'chat.postMessage' : 'chat.update';
        fake.faults.push({ method, status: 429, retryAfterSec: retryAfterMs / 1000, times: 1 });
        return scope === 'chat' ? 'send' : 'edit';
      },
      refusedFormat() {
        // Slack refuses a message's layout (invalid_blocks), never its Markdown as such:
        // the fake is told to refuse the next message's blocks.
        fake.faults.push({ method: 'chat.postMessage', error: 'invalid_blocks', times: 1 });
        return { text: 'a *layout* Slack will not take', format: slackMarkdown };
      },
      files: () =>
        fake
          .botMessages(CHANNEL, parentTs)
          .flatMap((m) => (m.files ?? []).map((f) => ({ name: f.name, size: f.data.length }))),
      // Slack has no typing indicator for bots; any call that tried to show one would be counted here.
      typings: () => fake.calls.filter((c) => /setStatus|typing/i.test(c.method)).length,
      until: (check, what) => fake.until(check, 5000, what),
      async close() {
        await adapter.stop();
        await fake.socket.waitForDisconnect();
        await fake.close();
      },
    };
    return rig;
  },
};

contractSuite(slack);
