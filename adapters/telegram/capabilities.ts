/**
 * What Telegram allows per chat. Private chats take about one edit per 1.1 s
 * and support drafts; groups about 20 messages per minute; the whole bot
 * about 30 per second. Rich messages (Markdown in, 32,768 characters) are
 * declared until the server answers 404 for one, then classic HTML at 4096.
 */
import type { ChatCapabilities, RateBudget } from '../../src/bot/adapter-contract.js';
import { isPrivateChat, type TelegramChat } from './chat-key.js';
import { telegramHtml, telegramMarkdown } from './markdown.js';
import { MAX_CAPTION_LENGTH, MAX_PHOTO_BYTES, MAX_UPLOAD_BYTES } from './upload.js';

/** Paces, overridable so tests can run a turn in milliseconds. */
export interface TelegramPaces {
  privateEditIntervalMs: number;
  groupEditIntervalMs: number;
  groupBudget: RateBudget;
  globalBudget: RateBudget;
  typingIntervalMs: number;
  /** Drafts are ~30 s previews: restart (or persist) them before this age. */
  draftMaxMs: number;
}

/** Telegram's documented limits with a margin. */
export const DEFAULT_PACES: TelegramPaces = {
  privateEditIntervalMs: 1100,
  groupEditIntervalMs: 3000,
  groupBudget: { count: 20, windowMs: 60_000 },
  // Telegram allows about 30 per second overall; keep a margin for arrival jitter.
  globalBudget: { count: 28, windowMs: 1000 },
  typingIntervalMs: 4500,
  draftMaxMs: 25_000,
};

/** Which server features are known to work; flipped off on a 404. */
export interface TelegramFeatures {
  rich: boolean;
  drafts: boolean;
}

/** Classic messages hold 4096 characters after entity parsing; rich ones 32,768. */
export const CLASSIC_MAX_LENGTH = 4096;
export const RICH_MAX_LENGTH = 32_768;
export const CALLBACK_DATA_LIMIT = 64;

/** Capabilities for one chat under the current features. */
export function telegramCapabilities(
  chat: TelegramChat,
  features: TelegramFeatures,
  paces: TelegramPaces,
): ChatCapabilities {
  const isPrivate = isPrivateChat(chat);
  return {
    maxMessageLength: features.rich ? RICH_MAX_LENGTH : CLASSIC_MAX_LENGTH,
    minEditIntervalMs: isPrivate ? paces.privateEditIntervalMs : paces.groupEditIntervalMs,
    ...(isPrivate ? {} : { budget: { ...paces.groupBudget } }),
    dialect: features.rich ? telegramMarkdown : telegramHtml,
    nativeStream: isPrivate && features.drafts,
    ...(isPrivate && features.drafts ? { nativeStreamMaxMs: paces.draftMaxMs } : {}),
    buttonPayloadLimit: CALLBACK_DATA_LIMIT,
    typingIntervalMs: paces.typingIntervalMs,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    maxImageUploadBytes: MAX_PHOTO_BYTES,
    maxCaptionLength: MAX_CAPTION_LENGTH,
    ...(isPrivate ? { privateChat: true } : {}),
  };
}
