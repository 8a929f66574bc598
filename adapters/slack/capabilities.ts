/**
 * What a Slack chat allows. Slack shows about 4,000 characters of a message
 * before cutting it ("Show more" past that, and sections hold 3,000), so
 * replies split at 3,900. chat.update is Tier 3 (~50 per minute) and one
 * update per ~3 s per message avoids 429s; native stream appends are
 * cheaper and paced at 1 s. Streams end after ~5 minutes, so the core
 * restarts them at 4.5.
 *
 * Dialect: while native streaming works the chat is declared `slackMarkdown`:
 * streams take standard Markdown (`markdown_text`), and every other message
 * goes out as a `markdown` block, so one reply renders the same whether it
 * streamed or was edited. Once the server shows it has no chat streams
 * (unknown_method / 404), chats are declared `slackMrkdwn` and replies are
 * placeholders edited with chat.update.
 */
import type { ChatCapabilities, RateBudget } from '../../src/bot/adapter-contract.js';
import { isDirectChannel } from './keys.js';
import { slackMarkdown, slackMrkdwn } from './markdown.js';
import { MAX_UPLOAD_BYTES } from './upload.js';

/** Paces and limits, overridable so tests can use short intervals. */
export interface SlackPaces {
  /** Longest message text before the core splits (default 3900). */
  maxMessageLength?: number;
  /** Gap between two chat.update calls on one message (default 3000 ms). */
  editIntervalMs?: number;
  /** Gap between two chat.appendStream calls on one stream (default 1000 ms). */
  streamIntervalMs?: number;
  /** Calls per chat over a window (default 50 per 60 s, Tier 3). */
  budget?: RateBudget;
  /** Age at which the core finishes a native stream and starts a new one (default 270,000 ms). */
  nativeStreamMaxMs?: number;
}

/** Slack's numbers. */
export const SLACK_DEFAULT_PACES: Required<SlackPaces> = {
  maxMessageLength: 3900,
  editIntervalMs: 3000,
  streamIntervalMs: 1000,
  budget: { count: 50, windowMs: 60_000 },
  nativeStreamMaxMs: 270_000,
};

/** Slack's limit for a button's value. */
export const SLACK_BUTTON_VALUE_LIMIT = 2000;

/**
 * Capabilities of a Slack chat, given whether native streams are available;
 * `chat` (a chat key) tells a direct message from a channel.
 */
export function slackCapabilities(
  paces: Required<SlackPaces>,
  nativeStream: boolean,
  chat = '',
): ChatCapabilities {
  return {
    maxMessageLength: paces.maxMessageLength,
    minEditIntervalMs: nativeStream ? paces.streamIntervalMs : paces.editIntervalMs,
    budget: paces.budget,
    dialect: nativeStream ? slackMarkdown : slackMrkdwn,
    nativeStream,
    ...(nativeStream ? { nativeStreamMaxMs: paces.nativeStreamMaxMs } : {}),
    buttonPayloadLimit: SLACK_BUTTON_VALUE_LIMIT,
    // Slack has no typing indicator for bots.
    typingIntervalMs: 0,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    // A file's initial comment is a message of its own length.
    maxCaptionLength: paces.maxMessageLength,
    ...(isDirectChannel(chat.split(':')[1] ?? '') ? { privateChat: true } : {}),
  };
}
