/**
 * What the fake Slack workspace holds: every message with its current
 * content (so tests assert what a person sees), ephemeral messages, posts to
 * response URLs, users, and the limits and paces it enforces.
 */
import { type AnyBlock, renderBlocks } from './blocks.js';

/** Limits and paces; tests pass short paces, load tests scale them with the bot's. */
export interface FakeSlackLimits {
  /** chat.postMessage / chat.update `text` (40,000 on Slack). */
  maxText: number;
  /** `markdown_text` of any method (12,000). */
  maxMarkdownText: number;
  /** Minimum gap between two chat.update calls on one message, in ms (Slack: ~3 s is safe). */
  updateIntervalMs: number;
  /** chat.update calls allowed per channel in `budgetWindowMs` (Tier 3: ~50 per minute). */
  updateBudget: number;
  budgetWindowMs: number;
  /** Minimum gap between two chat.appendStream calls on one stream, in ms. */
  appendIntervalMs: number;
  /** Slack's streams end after about five minutes. */
  streamMaxMs: number;
  /** Seconds sent in Retry-After with a 429. */
  retryAfterSec: number;
  /** Timing slack allowed before calling a call too fast, in ms. */
  toleranceMs: number;
  /** Largest file files.getUploadURLExternal accepts (Slack: 1 GB; a workspace may restrict it). */
  maxUploadBytes: number;
}

/** Slack's own numbers. */
export const DEFAULT_LIMITS: FakeSlackLimits = {
  maxText: 40_000,
  maxMarkdownText: 12_000,
  updateIntervalMs: 3000,
  updateBudget: 50,
  budgetWindowMs: 60_000,
  appendIntervalMs: 1000,
  streamMaxMs: 300_000,
  retryAfterSec: 1,
  toleranceMs: 15,
  maxUploadBytes: 1024 * 1024 * 1024,
};

/** A message in a channel, as it currently is. */
export interface FakeMessage {
  channel: string;
  ts: string;
  /** Parent ts when this is a reply (equal to `ts` is never stored). */
  threadTs?: string;
  user: string;
  botId?: string;
  /** The `text` field (fallback text when blocks are present). */
  text: string;
  blocks?: AnyBlock[];
  /** Open native stream: `streaming`; finished: `completed`; never a stream: undefined. */
  streamState?: 'streaming' | 'completed';
  streamStartedAt?: number;
  lastUpdateAt?: number;
  lastAppendAt?: number;
  /** Every text the message showed, in order. */
  history: string[];
  deleted: boolean;
  /** Files shared with the message (files.completeUploadExternal); `text` is the initial comment. */
  files?: Array<{ id: string; name: string; title: string; mimetype: string; data: Buffer }>;
}

/** An ephemeral message, seen only by `user`. */
export interface FakeEphemeral {
  channel: string;
  user: string;
  threadTs?: string;
  text: string;
}

/** The text a person sees for a message. */
export function visibleText(message: FakeMessage): string {
  return message.blocks && message.blocks.length > 0 ? renderBlocks(message.blocks) : message.text;
}

/** The workspace. */
export class FakeSlackState {
  readonly messages = new Map<string, FakeMessage>();
  readonly ephemerals: FakeEphemeral[] = [];
  /** Modals opened with views.open, in order. */
  readonly views: Array<{ triggerId: string; view: Record<string, unknown> }> = [];
  /** Bodies posted to response URLs, by response id. */
  readonly responses: Array<{ id: string; body: Record<string, unknown> }> = [];
  readonly users = new Map<string, string>();
  /** Uploaded files by id, served at `/files/<id>` to the bot token only. */
  /** Shared files; `extra` holds more fields of the file object (a clip's subtype and duration_ms). */
  readonly files = new Map<
    string,
    { name: string; mimetype: string; data: Buffer; extra?: Record<string, unknown> }
  >();
  /** Ids of the files downloaded with the bot token, in order. */
  readonly fileDownloads: string[] = [];
  /** Files between files.getUploadURLExternal and files.completeUploadExternal, by id. */
  readonly uploads = new Map<string, { id: string; filename: string; length: number; data?: Buffer }>();
  /** chat.update times per channel, for the budget. */
  readonly channelUpdates = new Map<string, number[]>();
  #seq = 0;
  readonly #base = 1_700_000_000;

  /** A fresh, increasing message ts (`1700000001.000001`). */
  nextTs(): string {
    this.#seq += 1;
    return `${this.#base + this.#seq}.${String(this.#seq).padStart(6, '0')}`;
  }

  key(channel: string, ts: string): string {
    return `${channel}:${ts}`;
  }

  get(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.get(this.key(channel, ts));
  }

  add(message: Omit<FakeMessage, 'history' | 'deleted'>): FakeMessage {
    const stored: FakeMessage = { ...message, history: [], deleted: false };
    stored.history.push(visibleText(stored));
    this.messages.set(this.key(message.channel, message.ts), stored);
    return stored;
  }

  /** The thread's parent and replies in order, deleted ones left out. */
  thread(channel: string, threadTs: string): FakeMessage[] {
    return [...this.messages.values()]
      .filter((m) => m.channel === channel && !m.deleted && (m.ts === threadTs || m.threadTs === threadTs))
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  /** Messages the bot posted, in order (optionally in one thread). */
  botMessages(botUserId: string, channel?: string, threadTs?: string): FakeMessage[] {
    return [...this.messages.values()]
      .filter(
        (m) =>
          m.user === botUserId &&
          !m.deleted &&
          (channel === undefined || m.channel === channel) &&
          (threadTs === undefined || m.threadTs === threadTs || m.ts === threadTs),
      )
      .sort((a, b) => Number(a.ts) - Number(b.ts));
  }

  userName(id: string): string {
    return this.users.get(id) ?? id.toLowerCase();
  }
}
