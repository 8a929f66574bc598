/**
 * What a Discord chat allows. Discord counts message length in characters
 * (2000) and limits writes per channel (about 5 per 5 s); the core splits and
 * paces from these numbers. Tests pass shorter paces through the options.
 */
import type { ChatCapabilities, RateBudget } from '../../src/bot/adapter-contract.js';
import { discordMarkdown } from './markdown.js';

/** The pacing numbers, overridable per adapter (tests, load tests scaled with the fake). */
export interface DiscordPaces {
  /** Minimum gap between two edits of one message. Default 1000. */
  minEditIntervalMs: number;
  /** Writes per channel over a window. Default 5 per 5000 ms. */
  budget: RateBudget;
  /** channel.sendTyping lasts 10 s; re-sent a little before. Default 9000. */
  typingIntervalMs: number;
}

/** Discord's documented numbers. */
export const DEFAULT_PACES: DiscordPaces = {
  minEditIntervalMs: 1000,
  budget: { count: 5, windowMs: 5000 },
  typingIntervalMs: 9000,
};

/** Longest message content Discord accepts, in characters. */
export const MAX_MESSAGE_LENGTH = 2000;

/** A bot's default upload limit, 10 MiB (https://discord.com/developers/docs/reference#uploading-files). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** Largest custom_id Discord accepts on a button. */
export const BUTTON_PAYLOAD_LIMIT = 100;

/**
 * The capabilities a Discord chat declares; `chat` (a chat key) tells a DM
 * (`discord:dm:…`) from a thread.
 */
export function discordCapabilities(paces: DiscordPaces, chat = ''): ChatCapabilities {
  return {
    // Declared as the real limit; the core's splitter leaves room for reopened code fences.
    maxMessageLength: MAX_MESSAGE_LENGTH,
    minEditIntervalMs: paces.minEditIntervalMs,
    budget: { ...paces.budget },
    dialect: discordMarkdown,
    nativeStream: false,
    buttonPayloadLimit: BUTTON_PAYLOAD_LIMIT,
    typingIntervalMs: paces.typingIntervalMs,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    maxCaptionLength: MAX_MESSAGE_LENGTH,
    ...(chat.split(':')[1] === 'dm' ? { privateChat: true } : {}),
  };
}
