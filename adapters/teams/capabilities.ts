/**
 * What a Teams chat allows, from Microsoft's published numbers:
 *
 * - Message size: "Format your bot messages"
 *   (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/format-your-bot-messages)
 *   counts the whole activity in UTF-16 (2 bytes a code unit) and answers
 *   413 `MessageSizeTooBig` past it; the page has said 28 KB, then 40 KB,
 *   now 100 KB with 80 KB recommended. 12,000 characters is 24 KB of UTF-16,
 *   so a reply fits even the oldest limit with its card around it.
 * - Rate limits: "Optimize your bot with rate limiting"
 *   (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/rate-limit):
 *   per bot per thread 7 calls a second, 8 per 2 s, 60 per 30 s, 1800 an
 *   hour; 50 requests a second per app per tenant. Edits count like sends.
 *   The 30-second window is the one a long reply meets, so it is the chat
 *   budget, and edits come at most every 1.5 s (well under 7 a second).
 * - Streaming: "Stream bot messages"
 *   (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/streaming-ux):
 *   personal chats only, one stream per chat, buffer 1.5-2 s between
 *   updates, and a stream must end within two minutes ("exceeded streaming
 *   time"), so the core restarts it at 100 s.
 * - Buttons: an Adaptive Card's `Action.Execute` `data` has no limit of its
 *   own beyond the message size; the core's payloads are a dozen bytes, so
 *   1,000 bytes is a generous bound that keeps a card small.
 * - Typing: a bot's typing indicator shows for about three seconds
 *   ("Send and receive messages", typing activity), so the core renews it
 *   that often.
 * - Files: a bot sends a file only in a personal chat, through the
 *   file-consent card flow (`upload.ts`); one PUT to the upload session
 *   carries at most 60 MiB (Microsoft Graph, "Upload large files with an
 *   upload session"), so personal chats take files up to 50 MiB and other
 *   chats none.
 */
import type { ChatCapabilities, RateBudget } from '../../src/bot/adapter-contract.js';
import { type ChatKind, chatKind, conversationOf } from './chat-key.js';
import { teamsMarkdown } from './markdown.js';

/** Paces and limits, overridable so tests can scale them down on both sides. */
export interface TeamsPaces {
  /** Longest text of one message before the core splits (default 12,000). */
  maxMessageLength: number;
  /** Gap between two edits of one message in a channel or group chat (default 1500 ms). */
  editIntervalMs: number;
  /** Gap between two stream updates in a personal chat (default 1500 ms). */
  streamIntervalMs: number;
  /** Calls per conversation over a window (default 60 per 30 s): the core paces by it. */
  budget: RateBudget;
  /** The conversation's other windows (default 7 per 1 s, 8 per 2 s, 1,800 per hour). */
  otherBudgets: readonly RateBudget[];
  /** Calls across all conversations (default 50 per second). */
  globalBudget: RateBudget;
  /** Age at which the core finishes a stream and starts another (default 100 s; Teams ends them at 120 s). */
  nativeStreamMaxMs: number;
}

/** Teams' numbers. */
export const TEAMS_DEFAULT_PACES: TeamsPaces = {
  maxMessageLength: 12_000,
  editIntervalMs: 1500,
  streamIntervalMs: 1500,
  budget: { count: 60, windowMs: 30_000 },
  // Teams counts a bot's messages per conversation in four windows at once
  // (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/rate-limit):
  // the 30 s one paces; a burst must also fit the short ones, a long chat the hour.
  otherBudgets: [
    { count: 7, windowMs: 1000 },
    { count: 8, windowMs: 2000 },
    { count: 1800, windowMs: 3_600_000 },
  ],
  globalBudget: { count: 50, windowMs: 1000 },
  nativeStreamMaxMs: 100_000,
};

/** The largest button payload the adapter accepts, in bytes. */
export const TEAMS_BUTTON_PAYLOAD_LIMIT = 1000;

/** Largest file sent into a personal chat (one upload PUT holds at most 60 MiB). */
export const TEAMS_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/** How long a typing indicator lasts. */
export const TEAMS_TYPING_MS = 3000;

/** Capabilities of a chat of `kind`; streams only where Teams offers them (personal chats). */
export function teamsCapabilities(paces: TeamsPaces, kind: ChatKind, streaming = true): ChatCapabilities {
  const nativeStream = streaming && kind === 'personal';
  // Only the bot and the person see a personal chat (ChatCapabilities.privateChat, where the contract has it).
  const privacy = kind === 'personal' ? { privateChat: true } : {};
  return {
    ...privacy,
    maxMessageLength: paces.maxMessageLength,
    minEditIntervalMs: nativeStream ? paces.streamIntervalMs : paces.editIntervalMs,
    budget: paces.budget,
    otherBudgets: paces.otherBudgets,
    dialect: teamsMarkdown,
    nativeStream,
    ...(nativeStream ? { nativeStreamMaxMs: paces.nativeStreamMaxMs, nativeStreamStartCounts: true } : {}),
    buttonPayloadLimit: TEAMS_BUTTON_PAYLOAD_LIMIT,
    typingIntervalMs: TEAMS_TYPING_MS,
    ...(kind === 'personal'
      ? { maxUploadBytes: TEAMS_MAX_UPLOAD_BYTES, maxCaptionLength: paces.maxMessageLength }
      : {}),
  };
}

/** Capabilities of the chat a key names. */
export function capabilitiesOf(paces: TeamsPaces, chat: string, streaming = true): ChatCapabilities {
  return teamsCapabilities(paces, chatKind(conversationOf(chat)), streaming);
}
