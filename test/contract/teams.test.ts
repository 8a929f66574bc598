/**
 * The adapter contract for Microsoft Teams: the real Teams SDK (its HTTP
 * server, JWT check and Bot Connector client) inside the adapter, against
 * the fake Bot Connector and identity (test/fakes/teams). Sessions are
 * personal chats, group chats and channel threads; the outbound parts run
 * in a personal chat, the one kind of chat where Teams lets a bot send a
 * file.
 *
 * A bot's file reaches a Teams chat only once the person accepts the
 * consent card the bot posts for it ("Send and receive files using bot",
 * https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4).
 * So in this rig the adapter's `sendFile` is followed by the person
 * accepting the card it posted, and resolves once the fake holds the
 * uploaded bytes and the bot's file card shows in the chat: the suite then
 * sees the file as a person would. Everything in between (the card, the
 * consent invoke, the PUT to the upload session, the file card) is the real
 * adapter's.
 */

import { createTeamsAdapter } from '../../adapters/teams/index.js';
import { teamsMarkdown } from '../../adapters/teams/markdown.js';
import type { ChatAdapter, OutboundFile } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import {
  type Activity,
  type BotAnswer,
  DEFAULT_LIMITS,
  type FakeConversation,
  type FakeTeams,
  type StoredActivity,
  startFakeTeams,
} from '../fakes/teams/index.js';
import { type PlatformHarness, type PlatformRig, type PressView, type Spot, waitFor } from './harness.js';
import { contractSuite } from './suite.js';

const FILE_CONSENT_CARD = 'application/vnd.microsoft.teams.card.file.consent';
const FILE_INFO_CARD = 'application/vnd.microsoft.teams.card.file.info';
const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';
const FORMAT_DOCS =
  'https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/format-your-bot-messages';

/**
 * What the Bot Connector client posts around a message's text, in JSON
 * characters: `{"type":"message","text":"","textFormat":"markdown","attachments":[]}`.
 * The size rule counts the whole activity (below).
 */
const ACTIVITY_AROUND_TEXT = 69;

/** The largest file the adapter offers: one upload PUT carries less than 60 MiB (adapters/teams/capabilities.ts). */
const UPLOAD_LIMIT = 50 * 1024 * 1024;

/**
 * The one place the adapter is built, so a change of its option names is
 * made here once.
 */
/** The adapter's warnings, for a failure message that says why. */
const warnings: string[] = [];

function createAdapter(fake: FakeTeams, clock: Clock) {
  return createTeamsAdapter({
    logger: createLogger({
      level: 'warn',
      destination: { write: (line: string) => void warnings.push(line.trim()) },
    }),
    appId: fake.appId,
    appPassword: fake.appPassword,
    tenantId: fake.tenantId,
    authUrl: fake.tokenUrl(),
    openIdMetadataUrl: fake.openIdMetadataUrl,
    port: 0,
    host: '127.0.0.1',
    clock,
  });
}

/** A kept message's text. */
const textOf = (m: StoredActivity) => String(m.activity.text ?? '');

/** The attachments of a kept message. */
const attachmentsOf = (m: StoredActivity | undefined) =>
  (m?.activity.attachments as Activity[] | undefined) ?? [];

/** The bot's messages with text in exactly this conversation (a channel thread, not its whole channel). */
function place(fake: FakeTeams, conversationId: string): Spot {
  return {
    botTexts: () =>
      fake
        .messages(conversationId)
        .filter((m) => m.conversationId === conversationId && textOf(m) !== '')
        .map(textOf),
  };
}

/** The Action.Execute actions of a message's Adaptive Cards, in order. */
function actionsOf(message: StoredActivity | undefined): { title: string; verb: string; data: Activity }[] {
  return attachmentsOf(message)
    .filter((a) => a.contentType === ADAPTIVE_CARD)
    .flatMap((a) => ((a.content as { body?: Activity[] } | undefined)?.body ?? []) as Activity[])
    .flatMap((row) => (row.actions as { title: string; verb: string; data: Activity }[] | undefined) ?? []);
}

const teams: PlatformHarness = {
  name: 'teams',
  places: ['personal chat', 'group chat (a mention)', 'channel (a mention starts a thread)'],
  limits: {
    // 100 KB counted as UTF-16 over the whole activity: the text may have
    // what is left of 51,200 characters once the activity around it is counted.
    messageLength: {
      value: DEFAULT_LIMITS.maxMessageBytes / 2 - ACTIVITY_AROUND_TEXT,
      format: teamsMarkdown,
      docs: FORMAT_DOCS,
    },
    // Action.Execute `data` has no limit of its own; the message's 100 KB (UTF-16) holds it.
    buttonPayloadBytes: { value: DEFAULT_LIMITS.maxMessageBytes / 2, docs: FORMAT_DOCS },
    upload: {
      documented: {
        // "The maximum bytes in any given request must be less than 60 MiB" (one PUT, as the adapter uploads).
        value: 60 * 1024 * 1024,
        docs: 'https://learn.microsoft.com/en-us/graph/api/driveitem-createuploadsession',
      },
      enforced: UPLOAD_LIMIT,
      why: 'the fake takes any single PUT; the adapter refuses past its own 50 MiB, under the 60 MiB one request may carry',
    },
    ackDeadlineMs: {
      value: DEFAULT_LIMITS.invokeDeadlineMs,
      docs: 'https://learn.microsoft.com/en-us/microsoftteams/platform/messaging-extensions/how-to/action-commands/respond-to-task-module-submit',
    },
    // In a personal chat a reply's updates are stream updates, which Teams takes once a second.
    editIntervalMs: {
      value: DEFAULT_LIMITS.streamMinIntervalMs,
      docs: 'https://learn.microsoft.com/en-us/microsoftteams/platform/bots/streaming-ux',
    },
    chatBudget: {
      value: 60,
      windowMs: 30_000,
      docs: 'https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/rate-limit',
    },
  },
  cannot: {
    'rate-limit-global':
      "Teams' 429 does not say whether the thread's or the app's limit was hit, so the adapter reports each as per chat and the core keeps the bot-wide budget (globalBudget) itself",
    'format-refused':
      'Teams never refuses Markdown text: what it cannot render shows as written (a 400 is a malformed activity, not its markup)',
    'command-ack':
      'Teams bots have no slash commands: a command is a message typed like any other, and nothing waits for it to be acknowledged',
  },
  async start({ log, clock }) {
    const fake = await startFakeTeams();
    const adapter = createAdapter(fake, clock);
    const ada = fake.person('Ada');
    const bob = fake.person('Bob');
    // The personal chat the outbound parts run in.
    const personal = fake.personalChat(ada);
    try {
      await adapter.start(log.sink);
      fake.setBotEndpoint(`http://127.0.0.1:${adapter.port}/api/messages`);
      // Installing the bot in the chat tells it the chat's endpoint, as Teams does.
      const installed = await fake.botAdded(personal);
      if (installed.answer.status >= 300)
        throw new Error(`the bot answered HTTP ${installed.answer.status} to being installed`);
    } catch (err) {
      await adapter.stop().catch(() => undefined);
      await fake.close();
      throw err;
    }
    const chat = place(fake, personal.id);

    /** Wakes {@link PlatformRig.until}: on every call the fake records and every answer the bot gives. */
    const changed = new Set<() => void>();
    const wake = () => {
      for (const check of [...changed]) check();
    };
    let open = true;
    void (async () => {
      while (open) {
        const seen = fake.calls.length;
        await fake.waitForCall(() => fake.calls.length > seen);
        wake();
      }
    })();

    /** The message the person wrote last, as posted. */
    let lastSaid: Activity | undefined;
    const say = async (conversation: FakeConversation, text: string, mentionBot: boolean) => {
      const { answer, activity } = await fake.userMessage(conversation, text, { mentionBot, from: ada });
      if (answer.status >= 300) throw new Error(`the bot answered HTTP ${answer.status} to a message`);
      lastSaid = activity;
      return String((activity.conversation as { id: string }).id);
    };

    /** How the bot answered an invoke (a press), as Teams saw it. */
    const answered = (answer: Promise<BotAnswer>): PressView => {
      let got: BotAnswer | undefined;
      // A press still in flight when the test ends fails with the closed fake; acknowledged() reports it.
      answer.then(
        (a) => {
          got = a;
          wake();
        },
        () => undefined,
      );
      return {
        async acknowledged() {
          const a = await answer;
          if (a.late) throw new Error(`the invoke was answered after ${Math.round(a.elapsedMs)} ms`);
          if (a.status !== 200) throw new Error(`the invoke was answered with HTTP ${a.status}`);
        },
        shown() {
          const body = got?.body as { type?: unknown; value?: unknown } | undefined;
          return body?.type === 'application/vnd.microsoft.activity.message' && typeof body.value === 'string'
            ? [body.value]
            : [];
        },
      };
    };

    /** The person accepts the consent card `cardId` and the bot's upload finishes. */
    const accept = async (cardId: string, name: string) => {
      const { answer, upload } = await fake.fileConsent(personal, cardId, 'accept');
      if (answer.status !== 200 || !upload)
        throw new Error(`the consent was answered with HTTP ${answer.status}`);
      // The file card, or the bot's line saying the upload failed (then the test says why).
      const after = fake.messages(personal.id).length;
      const outcome = await fake.waitForSent(
        (m) =>
          m.conversationId === personal.id &&
          (attachmentsOf(m).some((a) => a.contentType === FILE_INFO_CARD && a.name === name) ||
            fake.messages(personal.id).indexOf(m) >= after),
      );
      if (!attachmentsOf(outcome).some((a) => a.contentType === FILE_INFO_CARD))
        throw new Error(
          `the upload failed: the bot said "${textOf(outcome)}"; upload calls: ${JSON.stringify(
            fake.calls.filter((c) => c.op === 'upload').map((c) => c.status),
          )}; the adapter logged: ${warnings.slice(-3).join(' | ')}`,
        );
    };
    const sendFile = async (key: string, file: OutboundFile) => {
      const offer = adapter.sendFile?.bind(adapter);
      if (!offer) throw new Error('the Teams adapter has no sendFile');
      const sent = await offer(key, file);
      const card = attachmentsOf(fake.state.find(personal.id, sent.messageId)).find(
        (a) => a.contentType === FILE_CONSENT_CARD,
      );
      const offered = (card?.content as { sizeInBytes?: unknown } | undefined)?.sizeInBytes;
      if (card?.name !== file.name || offered !== file.bytes.length)
        throw new Error(`the bot's consent card names ${String(card?.name)} of ${String(offered)} bytes`);
      await accept(sent.messageId, file.name);
      return sent;
    };

    const rig: PlatformRig = {
      adapter: new Proxy(adapter, {
        get: (target, key) => (key === 'sendFile' && target.sendFile ? sendFile : Reflect.get(target, key)),
      }) as ChatAdapter,
      chat: `teams:${personal.id}`,
      botTexts: chat.botTexts,
      async say(where, text) {
        if (where === 'personal chat') return place(fake, await say(personal, text, false));
        if (where === 'group chat (a mention)') {
          const group = fake.groupChat([ada, bob]);
          return place(fake, await say(group, text, true));
        }
        // A new channel post is a thread of its own, whose id names the post.
        return place(fake, await say(fake.channel([ada, bob]), text, true));
      },
      async editLastSaid(text) {
        if (!lastSaid) return;
        // A person's edit reaches the bot as messageUpdate / editMessage
        // (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/conversations/subscribe-to-conversation-events).
        const channelData = { ...(lastSaid.channelData as Activity), eventType: 'editMessage' };
        const answer = await fake.post({ ...lastSaid, type: 'messageUpdate', text, channelData });
        if (answer.status >= 300) throw new Error(`the bot answered HTTP ${answer.status} to an edit`);
      },
      buttonLabels: (messageId) => actionsOf(fake.state.find(personal.id, messageId)).map((a) => a.title),
      async press(messageId, payload) {
        const action = actionsOf(fake.state.find(personal.id, messageId)).find(
          (a) => a.data.payload === payload,
        );
        if (!action) throw new Error(`no button with payload ${payload} on message ${messageId}`);
        return answered(
          fake
            .cardAction(personal, messageId, action.verb, action.data, { from: ada })
            .then(({ answer }) => answer),
        );
      },
      async command(name, args) {
        // The compose box's command suggestions send the word as the message text.
        const { answer } = await fake.userMessage(personal, `${name} ${args}`, { from: ada });
        return {
          async acknowledged() {
            throw new Error(`a typed command is a message, answered HTTP ${answer.status} at once`);
          },
          shown: () => [],
        };
      },
      rateLimitNext(scope, retryAfterMs) {
        if (scope === 'global') return undefined;
        fake.faults.push({
          op: 'send',
          conversationId: personal.id,
          status: 429,
          retryAfterSec: retryAfterMs / 1000,
          times: 1,
        });
        return 'send';
      },
      files: () =>
        fake
          .messages(personal.id)
          .flatMap((m) => attachmentsOf(m).filter((a) => a.contentType === FILE_INFO_CARD))
          .map((a) => {
            const uniqueId = (a.content as { uniqueId?: string } | undefined)?.uniqueId;
            const upload = [...fake.files.uploads.values()].find((u) => u.uniqueId === uniqueId);
            return { name: String(a.name), size: upload?.bytes?.length ?? 0 };
          }),
      typings: () =>
        fake.calls.filter(
          (c) =>
            c.op === 'send' &&
            c.conversationId === personal.id &&
            c.status < 300 &&
            (c.body as { type?: unknown } | undefined)?.type === 'typing',
        ).length,
      until: (check, what) =>
        waitFor(changed, () => (check() ? true : undefined), what).then(() => undefined),
      async close() {
        open = false;
        wake();
        await adapter.stop();
        await fake.close();
      },
    };
    return rig;
  },
};

contractSuite(teams);
