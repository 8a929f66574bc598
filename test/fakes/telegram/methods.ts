/**
 * The fake's Bot API methods. Each validates its parameters the way Telegram
 * does (lengths after entity parsing, 64-byte callback_data, "message is not
 * modified", unknown messages) and updates {@link FakeState}. Shapes follow
 * the installed @grammyjs/types definitions.
 */
import { ApiError, type FakeMessage } from './state.js';
import { TOPIC_METHODS } from './topics.js';
import { UPLOAD_METHODS } from './uploads.js';
import {
  bad,
  chatIdOf,
  checkMarkup,
  type Handler,
  type MethodContext,
  num,
  optNum,
  type Params,
  parseRich,
  parseText,
} from './validate.js';

export type { FakeContentLimits, MethodContext } from './validate.js';

/** The largest file a bot may download through getFile (Bot API, getFile). */
export const TELEGRAM_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

function chatOf(chatId: number) {
  return chatId > 0
    ? { id: chatId, type: 'private', first_name: 'User' }
    : { id: chatId, type: 'supergroup', title: 'Group' };
}

function messageResult(m: FakeMessage, ctx: MethodContext) {
  return {
    message_id: m.messageId,
    date: Math.floor(ctx.now / 1000),
    chat: chatOf(m.chatId),
    from: ctx.bot,
    ...(m.threadId === undefined ? {} : { message_thread_id: m.threadId, is_topic_message: true }),
    ...(m.rich ? { rich_message: { blocks: [] } } : { text: m.text }),
    ...(m.replyMarkup ? { reply_markup: m.replyMarkup } : {}),
  };
}

/** A real message makes that chat's drafts disappear, as in Telegram clients. */
function clearDrafts(ctx: MethodContext, chatId: number, threadId: number | undefined) {
  for (const d of ctx.state.drafts.values())
    if (d.chatId === chatId && d.threadId === threadId) d.active = false;
}

function send(p: Params, ctx: MethodContext, rich: boolean) {
  const chatId = chatIdOf(p);
  const threadId = optNum(p, 'message_thread_id');
  const text = rich ? parseRich(p.rich_message, ctx) : parseText(p.text, p.parse_mode, ctx);
  const markup = checkMarkup(p.reply_markup, ctx);
  const reply = p.reply_parameters as
    | { message_id?: number; allow_sending_without_reply?: boolean }
    | undefined;
  if (
    reply?.message_id !== undefined &&
    !ctx.state.message(chatId, reply.message_id) &&
    !reply.allow_sending_without_reply
  ) {
    throw bad('message to be replied not found');
  }
  const message: FakeMessage = {
    chatId,
    messageId: ctx.state.nextMessageId(chatId),
    ...(threadId === undefined ? {} : { threadId }),
    fromBot: true,
    text,
    source: rich ? JSON.stringify(p.rich_message) : String(p.text),
    ...(typeof p.parse_mode === 'string' ? { parseMode: p.parse_mode } : {}),
    rich,
    ...(markup ? { replyMarkup: markup } : {}),
    ...(reply?.message_id === undefined ? {} : { replyTo: reply.message_id }),
    deleted: false,
    history: [text],
  };
  ctx.state.putMessage(message);
  clearDrafts(ctx, chatId, threadId);
  return messageResult(message, ctx);
}

function editText(p: Params, ctx: MethodContext) {
  const chatId = chatIdOf(p);
  const message = ctx.state.message(chatId, num(p, 'message_id'));
  if (!message || message.deleted) throw bad('message to edit not found');
  if (!message.fromBot) throw bad("message can't be edited");
  const rich = p.rich_message !== undefined;
  if (rich && !ctx.rich) throw bad('message text is empty');
  let text: string;
  try {
    text = rich ? parseRich(p.rich_message, ctx) : parseText(p.text, p.parse_mode, ctx);
  } catch (err) {
    // Telegram words an over-long edit differently from an over-long send.
    if (err instanceof ApiError && err.description.endsWith('message is too long'))
      throw bad('MESSAGE_TOO_LONG');
    throw err;
  }
  const markup = checkMarkup(p.reply_markup, ctx);
  const source = rich ? JSON.stringify(p.rich_message) : String(p.text);
  const parseMode = typeof p.parse_mode === 'string' ? p.parse_mode : undefined;
  if (
    source === message.source &&
    parseMode === message.parseMode &&
    rich === message.rich &&
    JSON.stringify(markup ?? null) === JSON.stringify(message.replyMarkup ?? null)
  ) {
    throw bad(
      'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
    );
  }
  message.text = text;
  message.source = source;
  message.rich = rich;
  if (parseMode === undefined) delete message.parseMode;
  else message.parseMode = parseMode;
  // Telegram drops the inline keyboard when an edit carries none.
  if (markup) message.replyMarkup = markup;
  else delete message.replyMarkup;
  message.history.push(text);
  return messageResult(message, ctx);
}

function draft(p: Params, ctx: MethodContext, rich: boolean) {
  const chatId = chatIdOf(p);
  if (chatId < 0) throw bad('TEXTDRAFT_PEER_INVALID');
  const draftId = num(p, 'draft_id');
  if (draftId === 0) throw bad('draft_id must be non-zero');
  const threadId = optNum(p, 'message_thread_id');
  let text = '';
  if (rich) text = parseRich(p.rich_message, ctx);
  else if (typeof p.text === 'string' && p.text.length > 0) text = parseText(p.text, p.parse_mode, ctx);
  const key = `${chatId}:${threadId ?? ''}:${draftId}`;
  const existing = ctx.state.drafts.get(key);
  if (existing) {
    existing.texts.push(text);
    existing.active = true;
  } else {
    ctx.state.drafts.set(key, {
      chatId,
      ...(threadId === undefined ? {} : { threadId }),
      draftId,
      rich,
      canStop: p.can_stop === true,
      texts: [text],
      active: true,
    });
  }
  return true;
}

/** Every method the fake serves. */
export const METHODS: Record<string, Handler> = {
  getMe: (_p, ctx) => ctx.bot,
  deleteWebhook: (_p, ctx) => {
    ctx.state.webhook = undefined;
    return true;
  },
  setWebhook: (p, ctx) => {
    if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url))
      throw bad('bad webhook: an HTTPS URL must be provided for webhook');
    const secret = p.secret_token;
    if (secret !== undefined && (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{1,256}$/.test(secret))) {
      throw bad('bad webhook: secret token contains unallowed characters');
    }
    const allowed = Array.isArray(p.allowed_updates) ? (p.allowed_updates as string[]) : undefined;
    ctx.state.webhook = {
      url: p.url,
      ...(typeof secret === 'string' ? { secret } : {}),
      ...(allowed ? { allowedUpdates: allowed } : {}),
    };
    if (allowed) ctx.state.allowedUpdates = allowed;
    return true;
  },
  getWebhookInfo: (_p, ctx) => ({
    url: ctx.state.webhook?.url ?? '',
    has_custom_certificate: false,
    pending_update_count: 0,
  }),
  setMyCommands: (p, ctx) => {
    const commands = p.commands as { command: string; description: string }[] | undefined;
    if (!Array.isArray(commands) || commands.length > 100)
      throw bad('commands must be an array of at most 100');
    for (const c of commands) {
      if (!/^[a-z0-9_]{1,32}$/.test(c.command)) throw bad('BOT_COMMAND_INVALID');
      if (!c.description || c.description.length > 256) throw bad('BOT_COMMAND_DESCRIPTION_INVALID');
    }
    ctx.state.commands = commands;
    return true;
  },
  ...UPLOAD_METHODS,
  ...TOPIC_METHODS,
  sendMessage: (p, ctx) => send(p, ctx, false),
  sendRichMessage: (p, ctx) => send(p, ctx, true),
  editMessageText: editText,
  sendMessageDraft: (p, ctx) => draft(p, ctx, false),
  sendRichMessageDraft: (p, ctx) => draft(p, ctx, true),
  deleteMessage: (p, ctx) => {
    const message = ctx.state.message(num(p, 'chat_id'), num(p, 'message_id'));
    if (!message || message.deleted) throw bad('message to delete not found');
    message.deleted = true;
    return true;
  },
  sendChatAction: (p, ctx) => {
    const threadId = optNum(p, 'message_thread_id');
    ctx.state.chatActions.push({
      chatId: num(p, 'chat_id'),
      ...(threadId === undefined ? {} : { threadId }),
      action: String(p.action),
      at: ctx.now,
    });
    return true;
  },
  answerCallbackQuery: (p, ctx) => {
    const callback = ctx.state.callbacks.get(String(p.callback_query_id));
    if (!callback || callback.answered || ctx.now - callback.pushedAt > ctx.limits.callbackDeadlineMs) {
      throw bad('query is too old and response timeout expired or query ID is invalid');
    }
    if (typeof p.text === 'string' && p.text.length > 200) throw bad('MESSAGE_TOO_LONG');
    callback.answered = {
      ...(typeof p.text === 'string' ? { text: p.text } : {}),
      ...(p.show_alert === true ? { showAlert: true } : {}),
      at: ctx.now,
    };
    return true;
  },
  getFile: (p, ctx) => {
    const file = ctx.state.files.get(String(p.file_id));
    if (!file) throw bad('invalid file_id');
    // getFile: "For the moment, bots can download files of up to 20MB in size"
    // (https://core.telegram.org/bots/api#getfile); the server answers 400 "file is too big".
    if (file.data.length > TELEGRAM_DOWNLOAD_LIMIT) throw bad('file is too big');
    return {
      file_id: p.file_id,
      file_unique_id: `u${p.file_id}`,
      ...(file.withoutSize ? {} : { file_size: file.data.length }),
      file_path: file.path,
    };
  },
};

/** Methods an older Bot API server does not have (404 when rich is off). */
export const RICH_METHODS = new Set(['sendRichMessage', 'sendRichMessageDraft']);
