/**
 * Every kind of Slack payload, as Slack sends it, replayed into the ready
 * bot (`npm start`'s startSwitchboard) through the real Bolt against the
 * fake, over Socket Mode and over signed HTTP: from an allowed user and from
 * a stranger, each followed by a plain DM that must still be answered. Every
 * interactive payload must be acknowledged within Slack's 3 seconds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INACTIVE_CONTROL, NO_FORMS, NO_SHORTCUTS } from '../../../adapters/slack/dispatch.js';
import type { SlackAdapter } from '../../../adapters/slack/index.js';
import type { RunningApp } from '../../../src/app.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import {
  type Delivery,
  type FakeSlack,
  SlackRequestSender,
  startFakeSlack,
} from '../../fakes/slack/index.js';
import {
  blockSuggestion,
  channelJoin,
  channelMention,
  foreignButton,
  globalShortcut,
  malformed,
  messageShortcut,
  otherBot,
  type SlackFixture,
  type SlackScene,
  slackbotRemoval,
  viewClosed,
  viewSubmission,
} from '../../fixtures/slack.js';
import { watchUnhandled } from '../../reliability/telegram-world.js';
import { startSlackApp } from './app.js';

const SECRET = 'payloads-signing-secret';
/** Slack's deadline for acknowledging any payload. */
const ACK_DEADLINE_MS = 3000;

for (const mode of ['socket', 'http'] as const) {
  describe(`Slack payloads as the platform sends them (${mode === 'socket' ? 'Socket Mode' : 'HTTP'})`, () => {
    let fake: FakeSlack;
    let anthropic: FakeAnthropic;
    let root: string;
    let app: RunningApp;
    let pings = 0;
    let watch: ReturnType<typeof watchUnhandled>;

    beforeAll(async () => {
      watch = watchUnhandled();
      fake = await startFakeSlack();
      fake.state.users.set('U1', 'Alice');
      fake.state.users.set('U9', 'Mallory');
      anthropic = await startFakeAnthropic();
      root = await mkdtemp(join(tmpdir(), 'switchboard-slack-payloads-'));
      app = await startSlackApp(
        fake,
        anthropic,
        root,
        mode === 'http' ? { SLACK_SIGNING_SECRET: SECRET, SLACK_PORT: '0' } : {},
      );
      if (mode === 'http') {
        const slack = app.adapters.find((a) => a.platform === 'slack') as SlackAdapter;
        fake.httpTarget = new SlackRequestSender(slack.url as string, SECRET);
      }
    });

    afterAll(async () => {
      await app?.stop();
      if (mode === 'socket') await fake.socket.waitForDisconnect();
      await fake.close();
      await anthropic.close();
      await rm(root, { recursive: true, force: true });
      watch.stop();
    });

    const alice = (): SlackScene => scene('U1', 'Alice', 'D1');
    const mallory = (): SlackScene => scene('U9', 'Mallory', 'D9');
    function scene(user: string, userName: string, dm: string): SlackScene {
      return {
        teamId: fake.teamId,
        channel: 'C1',
        dm,
        user,
        userName,
        botUserId: fake.botUserId,
        url: fake.url,
        ts: () => fake.state.nextTs(),
      };
    }

    /** Delivers a fixture and checks Slack got its acknowledgement in time. */
    async function replay(fixture: SlackFixture, who: SlackScene): Promise<Delivery> {
      const delivery = await fake.deliver(fixture.kind, fixture.body(who));
      if (delivery.http) expect(delivery.http.status).toBe(200);
      if (delivery.ack) expect(delivery.ack.latencyMs).toBeLessThan(ACK_DEADLINE_MS);
      return delivery;
    }

    /** The acknowledgement's payload (Socket Mode) or the HTTP answer's JSON body. */
    function ackBody(delivery: Delivery): Record<string, unknown> {
      if (delivery.ack) return delivery.ack.payload ?? {};
      const text = delivery.http?.text ?? '';
      return text ? JSON.parse(text) : {};
    }

    /** Alice's plain DM is still answered, and nothing has crashed. */
    async function stillAnswers(): Promise<void> {
      const text = `plain message ${++pings}`;
      const { ts } = await fake.userMessage({ channel: 'D1', user: 'U1', text });
      await fake.until(
        () => fake.botTexts('D1', ts).some((t) => t.includes(text)),
        10_000,
        `the answer to "${text}"`,
      );
      expect(watch.errors).toEqual([]);
    }

    const responseTexts = () => fake.state.responses.map((r) => String(r.body.text ?? ''));
    const modalTexts = () => fake.state.views.map((v) => JSON.stringify(v.view));

    for (const [who, label] of [
      [alice, 'an allowed user'],
      [mallory, 'a stranger'],
    ] as const) {
      describe(`from ${label}`, () => {
        it('a button the bot did not post: acknowledged, and told it is no longer active', async () => {
          const before = responseTexts().filter((t) => t === INACTIVE_CONTROL).length;
          await replay(foreignButton, who());
          await fake.until(
            () => responseTexts().filter((t) => t === INACTIVE_CONTROL).length > before,
            5000,
            'the answer',
          );
          await stillAnswers();
        });

        it('view_submission: acknowledged with the form replaced by one line', async () => {
          const delivery = await replay(viewSubmission, who());
          expect(ackBody(delivery)).toMatchObject({ response_action: 'update' });
          expect(JSON.stringify(ackBody(delivery))).toContain(NO_FORMS.replace(/'/g, "'"));
          await stillAnswers();
        });

        it('view_closed: acknowledged, nothing said', async () => {
          await replay(viewClosed, who());
          await stillAnswers();
        });

        it('a global shortcut: acknowledged, answered in a modal', async () => {
          const before = modalTexts().length;
          await replay(globalShortcut, who());
          await fake.until(() => modalTexts().length > before, 5000, 'the modal');
          expect(modalTexts().at(-1)).toContain(NO_SHORTCUTS.slice(0, 20));
          await stillAnswers();
        });

        it('a message shortcut: acknowledged, answered to the person only', async () => {
          const before = responseTexts().filter((t) => t === NO_SHORTCUTS).length;
          await replay(messageShortcut, who());
          await fake.until(
            () => responseTexts().filter((t) => t === NO_SHORTCUTS).length > before,
            5000,
            'the answer',
          );
          await stillAnswers();
        });

        it('block_suggestion: acknowledged with no options', async () => {
          const delivery = await replay(blockSuggestion, who());
          expect(ackBody(delivery)).toEqual({ options: [] });
          await stillAnswers();
        });
      });
    }

    it("Slackbot's removal notice in the bot's DM is ignored, not answered", async () => {
      await replay(slackbotRemoval, alice());
      await stillAnswers();
      expect(fake.botMessages('D0SLACKBOT')).toEqual([]);
      expect(fake.state.ephemerals.filter((e) => e.channel === 'D0SLACKBOT')).toEqual([]);
    });

    it('a mention in a channel: answered in its thread for alice; a stranger is told privately, nothing posted', async () => {
      await replay(channelMention, alice());
      await fake.until(() => fake.botMessages('C1').length > 0, 10_000, 'the answer in the thread');
      await stillAnswers();
      const posted = fake.botMessages('C1').length;
      await replay(channelMention, mallory());
      await fake.until(
        () => fake.state.ephemerals.some((e) => e.user === 'U9' && /not allowed/.test(e.text)),
        5000,
        'the private refusal',
      );
      expect(fake.botMessages('C1')).toHaveLength(posted);
      await stillAnswers();
    });

    it('a stranger’s slash command in a channel starts no thread', async () => {
      const posted = fake.botMessages('C1').length;
      const { responseId } = await fake.slashCommand({ channel: 'C1', user: 'U9', text: 'status' });
      await fake.until(
        () =>
          fake.state.responses.some((r) => r.id === responseId && /not allowed/.test(String(r.body.text))),
        5000,
        'the refusal',
      );
      expect(fake.botMessages('C1')).toHaveLength(posted);
      await stillAnswers();
    });

    it('system messages and other bots are ignored', async () => {
      const before = fake.botMessages().length;
      await replay(channelJoin, alice());
      await replay(otherBot, alice());
      await stillAnswers();
      // Only the plain message's answer was added.
      expect(fake.botMessages()).toHaveLength(before + 1);
    });

    describe('malformed and incomplete payloads', () => {
      for (const fixture of malformed) {
        it(`${fixture.name}: acknowledged, and the bot keeps answering`, async () => {
          await replay(fixture, alice());
          await stillAnswers();
        });
      }
    });
  });
}
