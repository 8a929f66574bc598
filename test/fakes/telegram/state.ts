/**
 * What the fake Bot API remembers: every call, every message in its current
 * form (so tests assert what a user sees), drafts, callback answers, files
 * and the pending update queue.
 */
import type { InlineKeyboardMarkup, Update } from 'grammy/types';

/** A message as a Telegram user would see it now. */
export interface FakeMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  fromBot: boolean;
  /** Visible text (entities parsed); for rich messages the Markdown/HTML source. */
  text: string;
  /** The text as sent, before entity parsing. */
  source: string;
  parseMode?: string;
  rich: boolean;
  replyMarkup?: InlineKeyboardMarkup;
  replyTo?: number;
  deleted: boolean;
  /** Every visible version, oldest first. */
  history: string[];
  /** A sent photo or document (its caption is `text`). */
  file?: { kind: 'photo' | 'document'; name: string; data: Buffer };
}

/** A draft streaming into a private chat. */
export interface FakeDraft {
  chatId: number;
  threadId?: number;
  draftId: number;
  rich: boolean;
  canStop: boolean;
  /** Every text the draft showed, oldest first. */
  texts: string[];
  /** False once the bot sent a real message to that chat (the draft vanishes). */
  active: boolean;
}

/** One Bot API request the fake received. */
export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
  /** `ok`, or the error code answered. */
  outcome: 'ok' | number;
  description?: string;
}

/** A callback query pushed to the bot and how it was answered. */
export interface FakeCallback {
  id: string;
  pushedAt: number;
  answered?: { text?: string; showAlert?: boolean; at: number };
}

/** An error answer `{ok:false, error_code, description, parameters}`. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: { retry_after?: number },
  ) {
    super(description);
  }
}

/** Mutable state shared by the fake's handlers. */
export class FakeState {
  readonly calls: RecordedCall[] = [];
  readonly messages = new Map<string, FakeMessage>();
  readonly drafts = new Map<string, FakeDraft>();
  readonly callbacks = new Map<string, FakeCallback>();
  readonly files = new Map<string, { path: string; data: Buffer; withoutSize?: boolean; stall?: boolean }>();
  readonly chatActions: { chatId: number; threadId?: number; action: string; at: number }[] = [];
  commands: { command: string; description: string }[] = [];
  webhook: { url: string; secret?: string; allowedUpdates?: string[] } | undefined;
  allowedUpdates: string[] | undefined;
  queue: Update[] = [];
  /**
   * Forum supergroups by chat id, and whether the bot holds the
   * can_manage_topics administrator right there (createForumTopic needs it).
   */
  readonly forums = new Map<number, { canManageTopics: boolean }>();
  /** Topics opened by createForumTopic, by `<chatId>/<message_thread_id>`. */
  readonly topics = new Map<string, { name: string; iconColor: number }>();
  #nextMessageId = new Map<number, number>();
  #updateSeq = 0;

  nextUpdateId(): number {
    return ++this.#updateSeq;
  }

  nextMessageId(chatId: number): number {
    const id = (this.#nextMessageId.get(chatId) ?? 0) + 1;
    this.#nextMessageId.set(chatId, id);
    return id;
  }

  message(chatId: number, messageId: number): FakeMessage | undefined {
    return this.messages.get(`${chatId}/${messageId}`);
  }

  putMessage(message: FakeMessage): void {
    this.messages.set(`${message.chatId}/${message.messageId}`, message);
  }

  /** Messages in a chat (optionally one topic), oldest first, deleted ones left out. */
  chatMessages(chatId: number, threadId?: number): FakeMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.chatId === chatId && !m.deleted && (threadId === undefined || m.threadId === threadId),
    );
  }
}
