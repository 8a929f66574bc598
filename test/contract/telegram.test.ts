/**
 * The adapter contract for Telegram: the real grammY client against the
 * fake Bot API, once with rich messages (Markdown, the default where the
 * server has them) and once with classic HTML messages (older servers).
 *
 * The fake's flood limits are raised for these tests (they check what
 * happens to each call, not the pace; the 429 part injects its own), and
 * its document limit is set to 1 MiB so the over-the-limit upload is
 * quick; the adapter's declared 50 MB is checked against the documented
 * number instead.
 */
import type { Update } from 'grammy/types';
import { createTelegramAdapter } from '../../adapters/telegram/index.js';
import { telegramHtml, telegramMarkdown } from '../../adapters/telegram/markdown.js';
import type { EventSink } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';
import {
  callbackUpdate,
  editUpdate,
  type FakeTelegram,
  messageUpdate,
  startFakeTelegram,
  TELEGRAM_UPLOAD_LIMITS,
  type Where,
} from '../fakes/telegram/index.js';
import type { PlatformHarness, PlatformRig, Spot } from './harness.js';
import { contractSuite } from './suite.js';

const PERSON: Where = { chatId: 42, user: { id: 42, first_name: 'Ann' } };
const GROUP = -1002;
const FORUM = -1001;
const TOPIC = 7;
/**
 * How long a callback query may wait for its answer. The Bot API page gives
 * no number; about 15 s is what bots observe before QUERY_ID_INVALID
 * ("query is too old"), and the fake's default.
 */
const CALLBACK_DEADLINE_MS = 15_000;
const UPLOAD_LIMIT = 1024 * 1024;

/**
 * The one place the adapter is built, so a change of its option names is
 * made here once.
 */
function createAdapter(fake: FakeTelegram, options: { rich: boolean; clock: Clock }) {
  return createTelegramAdapter({
    token: fake.token,
    apiUrl: fake.url,
    rich: options.rich,
    clock: options.clock,
  });
}

/** Where a reply to a message in `chatId` (and topic) belongs, as the fake holds it. */
function spot(fake: FakeTelegram, chatId: number, threadId?: number): Spot {
  return {
    botTexts: () =>
      fake
        .botMessages(chatId)
        .filter((m) => m.threadId === threadId)
        .map((m) => m.text),
  };
}

function telegramHarness(rich: boolean): PlatformHarness {
  return {
    name: rich ? 'telegram (rich messages)' : 'telegram (classic HTML)',
    places: ['private chat', 'group', 'forum topic'],
    limits: {
      messageLength: rich
        ? // Rich messages hold 32,768 characters ("Rich Message Limits"); the fake refuses longer.
          {
            value: 32_768,
            format: telegramMarkdown,
            docs: 'https://core.telegram.org/bots/api#rich-message-formatting-options',
          }
        : {
            value: 4096,
            format: telegramHtml,
            docs: 'https://core.telegram.org/bots/api#sendmessage',
          },
      buttonPayloadBytes: { value: 64, docs: 'https://core.telegram.org/bots/api#inlinekeyboardbutton' },
      upload: {
        documented: {
          value: TELEGRAM_UPLOAD_LIMITS.maxFileBytes,
          docs: 'https://core.telegram.org/bots/api#sending-files',
        },
        enforced: UPLOAD_LIMIT,
        why: '50 MB through loopback would take seconds',
      },
      ackDeadlineMs: {
        value: CALLBACK_DEADLINE_MS,
        docs: 'https://core.telegram.org/bots/api#answercallbackquery',
      },
      // One message edited about once a second (the fake's default per-message limit).
      editIntervalMs: {
        value: 1000,
        docs: 'https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this',
      },
    },
    cannot: {
      'command-ack': 'a command is a message like any other: nothing waits for it to be acknowledged',
      'rate-limit-global':
        "Telegram's 429 does not say which limit was hit, so the adapter reports each as per chat and the core keeps the bot-wide budget (globalBudget) itself",
      ...(rich
        ? {
            'format-refused':
              'rich chats take Markdown, which the Bot API renders or shows as text but never refuses',
          }
        : {}),
    },
    async start({ log, clock }) {
      const fake = await startFakeTelegram({
        rich,
        limits: { private: { count: 100, windowMs: 1000 }, perMessage: { count: 100, windowMs: 1000 } },
        uploads: { maxFileBytes: UPLOAD_LIMIT },
        content: { callbackDeadlineMs: CALLBACK_DEADLINE_MS },
      });
      const adapter = createAdapter(fake, { rich, clock });
      try {
        await adapter.start(log.sink as EventSink);
      } catch (err) {
        await fake.close();
        throw err;
      }
      const chat = spot(fake, PERSON.chatId);
      const answers = (id: string) =>
        fake.state.calls.filter(
          (c) => c.method === 'answerCallbackQuery' && c.params.callback_query_id === id,
        );
      /** Edits the message the person wrote last. */
      let lastSaid: ((text: string) => void) | undefined;
      const rig: PlatformRig = {
        adapter,
        chat: `telegram:${PERSON.chatId}`,
        botTexts: chat.botTexts,
        async say(place, text) {
          const where: Where =
            place === 'private chat'
              ? PERSON
              : place === 'group'
                ? { ...PERSON, chatId: GROUP }
                : { ...PERSON, chatId: FORUM, threadId: TOPIC };
          const addressed = (t: string) => (where.chatId > 0 ? t : `@${fake.bot.username} ${t}`);
          const update = messageUpdate(where, addressed(text));
          fake.pushUpdate(update);
          const messageId = (update as Update).message?.message_id ?? 0;
          lastSaid = (edited) => fake.pushUpdate(editUpdate(where, messageId, addressed(edited)));
          return spot(fake, where.chatId, where.threadId);
        },
        async editLastSaid(text) {
          lastSaid?.(text);
        },
        async command(name, args) {
          fake.pushUpdate(messageUpdate(PERSON, `/${name} ${args}`));
          return {
            acknowledged: () =>
              Promise.reject(new Error('a Telegram command is a message: nothing acknowledges it')),
            shown: () => [],
          };
        },
        buttonLabels: (messageId) =>
          (fake.state.message(PERSON.chatId, Number(messageId))?.replyMarkup?.inline_keyboard ?? [])
            .flat()
            .map((b) => b.text),
        async press(messageId, payload) {
          const update = callbackUpdate(PERSON, Number(messageId), payload);
          fake.pushUpdate(update);
          const id = (update as Update).callback_query?.id ?? '';
          return {
            async acknowledged() {
              await fake.waitFor(() => answers(id).length > 0, 5000);
              const answered = fake.state.callbacks.get(id)?.answered;
              if (!answered)
                throw new Error(`the press was answered too late: ${answers(id)[0]?.description}`);
            },
            shown: () =>
              answers(id)
                .filter(
                  (c) => c.outcome === 'ok' && typeof c.params.text === 'string' && c.params.text !== '',
                )
                .map((c) => String(c.params.text)),
          };
        },
        rateLimitNext(scope, retryAfterMs) {
          if (scope === 'global') return undefined;
          fake.fault({
            method: 'editMessageText',
            kind: 'rate-limit',
            retryAfter: retryAfterMs / 1000,
            times: 1,
          });
          return 'edit';
        },
        ...(rich ? {} : { refusedFormat: () => ({ text: '<b>bold never closed', format: telegramHtml }) }),
        files: () =>
          fake
            .botMessages(PERSON.chatId)
            .flatMap((m) => (m.file ? [{ name: m.file.name, size: m.file.data.length }] : [])),
        typings: () => fake.state.chatActions.filter((a) => a.chatId === PERSON.chatId).length,
        until: (check, what) =>
          fake.waitFor(check, 5000).catch(() => {
            throw new Error(`fake Telegram: waited for ${what}`);
          }),
        async close() {
          await adapter.stop();
          await fake.close();
        },
      };
      return rig;
    },
  };
}

contractSuite(telegramHarness(true));
contractSuite(telegramHarness(false));
