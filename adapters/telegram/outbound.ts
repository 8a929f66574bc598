/**
 * Render operations as Bot API calls. Rich messages (Markdown in) are used
 * while the server has them; the first 404 for a rich or draft method turns
 * that feature off for the whole adapter and throws CAPABILITY_CHANGED, so
 * the core re-reads capabilities (classic HTML, 4096 characters) and retries,
 * on every path: sends, edits and drafts alike. Nothing here waits or
 * retries edits: their 429s reach the core as RATE_LIMITED. Each call has a
 * deadline (src/call-deadline.ts), far shorter than the client's own limit,
 * which must let a 30-second long poll through.
 */
import type { Api } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { OutboundMessage, SentMessage, StreamHandle } from '../../src/bot/adapter-contract.js';
import { escapeHtml } from '../../src/bot/format/dialect.js';
import { type DeadlineOptions, withDeadline } from '../../src/call-deadline.js';
import { SwitchboardError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { KeyboardMemory, toInlineKeyboard } from './buttons.js';
import type { TelegramFeatures } from './capabilities.js';
import { parseChatKey, type TelegramChat } from './chat-key.js';
import { isMethodMissing, isNotModified, toSwitchboardError } from './errors.js';
import { telegramHtml, telegramMarkdown } from './markdown.js';

/** What the outbound side needs. */
export interface OutboundDeps {
  api: Api;
  features: TelegramFeatures;
  logger: Logger;
  /** How long one call may take before it fails with PLATFORM_TIMEOUT. */
  deadline: Omit<DeadlineOptions, 'what'>;
}

/** The signal type grammY's methods take. */
type GrammySignal = NonNullable<Parameters<Api['raw']['sendMessage']>[1]>;

type Content =
  | { kind: 'rich'; rich: { markdown: string } | { html: string } }
  | { kind: 'classic'; text: string; parseMode?: 'HTML' };

/** Picks the wire form of a message for the features the server has. */
export function toContent(message: OutboundMessage, features: TelegramFeatures): Content {
  if (features.rich) {
    if (message.format === telegramMarkdown) return { kind: 'rich', rich: { markdown: message.text } };
    // Plain (or anything the core did not render for us) goes in as escaped HTML: nothing in it is markup.
    if (message.format !== telegramHtml) return { kind: 'rich', rich: { html: escapeHtml(message.text) } };
  }
  if (message.format === telegramHtml) return { kind: 'classic', text: message.text, parseMode: 'HTML' };
  return { kind: 'classic', text: message.text };
}

const threadOf = (chat: TelegramChat) =>
  chat.threadId === undefined ? {} : { message_thread_id: chat.threadId };

/** The outbound half of the adapter. */
export class TelegramOutbound {
  readonly #api: Api;
  readonly #features: TelegramFeatures;
  readonly #logger: Logger;
  readonly #deadline: Omit<DeadlineOptions, 'what'>;
  readonly #keyboards = new KeyboardMemory();
  #draftSeq = 0;

  constructor(deps: OutboundDeps) {
    this.#api = deps.api;
    this.#features = deps.features;
    this.#logger = deps.logger;
    this.#deadline = deps.deadline;
  }

  /** Runs one call within the deadline, mapping errors; a 404 on a rich or draft method turns that feature off. */
  async #call<T>(
    method: string,
    fn: (signal: GrammySignal) => Promise<T>,
    feature?: keyof TelegramFeatures,
  ): Promise<T> {
    try {
      // grammY types its signal with its abort-controller shim but follows any signal
      // that has addEventListener (core/client.js, createAbortControllerFromSignal).
      return await withDeadline((signal) => fn(signal as unknown as GrammySignal), {
        ...this.#deadline,
        what: `Telegram ${method}`,
      });
    } catch (err) {
      if (isMethodMissing(err)) {
        if (feature && this.#features[feature]) {
          this.#features[feature] = false;
          this.#logger.warn(
            { method },
            `this Bot API server has no ${method}; switching to classic messages`,
          );
          throw new SwitchboardError(
            'CAPABILITY_CHANGED',
            `Telegram answered 404 for ${method}: ${feature === 'rich' ? 'rich messages' : 'drafts'} are off, re-read the capabilities and retry`,
            { cause: err, detail: { feature } },
          );
        }
      }
      throw toSwitchboardError(err, method);
    }
  }

  /**
   * Asks the server which optional methods it has, before any user waits on
   * them: a call with chat_id 0 answers "chat not found" where the method
   * exists and 404 where it does not. Nothing is sent to anyone.
   */
  async probe(): Promise<void> {
    const check = async (feature: keyof TelegramFeatures, call: () => Promise<unknown>) => {
      if (!this.#features[feature]) return;
      try {
        await call();
      } catch (err) {
        if (!isMethodMissing(err)) return;
        this.#features[feature] = false;
        this.#logger.info(
          { feature },
          `this Bot API server has no ${feature === 'rich' ? 'rich messages' : 'drafts'}; using classic messages`,
        );
      }
    };
    await check('rich', () => this.#api.raw.sendRichMessage({ chat_id: 0, rich_message: { markdown: '.' } }));
    await check('drafts', () => this.#api.raw.sendMessageDraft({ chat_id: 0, draft_id: 1, text: '.' }));
  }

  #keyboard(
    chat: string,
    messageId: string | undefined,
    message: OutboundMessage,
  ): InlineKeyboardMarkup | undefined {
    if (message.buttons !== undefined) return toInlineKeyboard(message.buttons);
    return messageId === undefined ? undefined : this.#keyboards.get(chat, messageId);
  }

  async send(chatKey: string, message: OutboundMessage): Promise<SentMessage> {
    const chat = parseChatKey(chatKey);
    const content = toContent(message, this.#features);
    const keyboard = this.#keyboard(chatKey, undefined, message);
    const common = {
      chat_id: chat.chatId,
      ...threadOf(chat),
      ...(keyboard && keyboard.inline_keyboard.length > 0 ? { reply_markup: keyboard } : {}),
      ...(message.replyTo === undefined
        ? {}
        : { reply_parameters: { message_id: Number(message.replyTo), allow_sending_without_reply: true } }),
    };
    const sent =
      content.kind === 'rich'
        ? await this.#call(
            'sendRichMessage',
            (signal) => this.#api.raw.sendRichMessage({ ...common, rich_message: content.rich }, signal),
            'rich',
          )
        : await this.#call('sendMessage', (signal) =>
            this.#api.raw.sendMessage(
              {
                ...common,
                text: content.text,
                ...(content.parseMode ? { parse_mode: content.parseMode } : {}),
                link_preview_options: { is_disabled: true },
              },
              signal,
            ),
          );
    const messageId = String(sent.message_id);
    this.#keyboards.set(chatKey, messageId, keyboard);
    return { messageId };
  }

  async edit(chatKey: string, messageId: string, message: OutboundMessage): Promise<void> {
    const chat = parseChatKey(chatKey);
    const content = toContent(message, this.#features);
    const keyboard = this.#keyboard(chatKey, messageId, message);
    const common = {
      chat_id: chat.chatId,
      message_id: Number(messageId),
      ...(keyboard && keyboard.inline_keyboard.length > 0 ? { reply_markup: keyboard } : {}),
    };
    try {
      await this.#call(
        'editMessageText',
        (signal) =>
          content.kind === 'rich'
            ? this.#api.raw.editMessageText({ ...common, rich_message: content.rich }, signal)
            : this.#api.raw.editMessageText(
                {
                  ...common,
                  text: content.text,
                  ...(content.parseMode ? { parse_mode: content.parseMode } : {}),
                  link_preview_options: { is_disabled: true },
                },
                signal,
              ),
        content.kind === 'rich' ? 'rich' : undefined,
      );
    } catch (err) {
      const cause = err instanceof SwitchboardError ? err.cause : err;
      if (!isNotModified(cause)) throw err;
    }
    this.#keyboards.set(chatKey, messageId, keyboard);
  }

  async delete(chatKey: string, messageId: string): Promise<void> {
    const chat = parseChatKey(chatKey);
    await this.#call('deleteMessage', (signal) =>
      this.#api.raw.deleteMessage({ chat_id: chat.chatId, message_id: Number(messageId) }, signal),
    );
    this.#keyboards.set(chatKey, messageId, undefined);
  }

  async typing(chatKey: string): Promise<void> {
    const chat = parseChatKey(chatKey);
    await this.#call('sendChatAction', (signal) =>
      this.#api.raw.sendChatAction({ chat_id: chat.chatId, action: 'typing', ...threadOf(chat) }, signal),
    );
  }

  /** A draft needs no call to begin: the first update shows it. */
  async startStream(chatKey: string, _options: { replyTo?: string }): Promise<StreamHandle> {
    const chat = parseChatKey(chatKey);
    if (chat.chatId <= 0 || !this.#features.drafts) {
      throw new SwitchboardError(
        'STREAM_UNAVAILABLE',
        'Telegram drafts work in private chats only; the reply goes out as an edited message',
      );
    }
    this.#draftSeq = (this.#draftSeq % 2_000_000_000) + 1;
    return { chat: chatKey, id: String(this.#draftSeq) };
  }

  async updateStream(handle: StreamHandle, message: OutboundMessage): Promise<void> {
    const chat = parseChatKey(handle.chat);
    if (!this.#features.drafts) {
      // Drafts went away mid-reply: the core carries on in a real message.
      throw new SwitchboardError(
        'STREAM_UNAVAILABLE',
        'This Bot API server has no drafts; the reply continues in a message',
      );
    }
    const base = { chat_id: chat.chatId, ...threadOf(chat), draft_id: Number(handle.id), can_stop: true };
    const content = toContent(message, this.#features);
    // An empty draft shows Telegram's "Thinking…" placeholder; only the classic method takes empty text.
    if (content.kind === 'rich' && message.text.trim() !== '') {
      await this.#call(
        'sendRichMessageDraft',
        (signal) => this.#api.raw.sendRichMessageDraft({ ...base, rich_message: content.rich }, signal),
        'rich',
      );
      return;
    }
    const text = content.kind === 'classic' ? content.text : '';
    const parseMode = content.kind === 'classic' ? content.parseMode : undefined;
    await this.#call(
      'sendMessageDraft',
      (signal) =>
        this.#api.raw.sendMessageDraft(
          { ...base, text, ...(parseMode && text ? { parse_mode: parseMode } : {}) },
          signal,
        ),
      'drafts',
    );
  }

  /** Sending the real message replaces the draft in the user's chat. */
  finishStream(handle: StreamHandle, message: OutboundMessage): Promise<SentMessage> {
    return this.send(handle.chat, message);
  }
}
