/**
 * Parameter checks shared by the fake's methods, worded as Telegram words
 * them: text length after entity parsing, rich-message content, inline
 * keyboards with 64-byte callback_data.
 */
import type { InlineKeyboardMarkup, User } from 'grammy/types';
import { EntityParseError, parseTelegramHtml, visibleText } from './markup.js';
import { ApiError, type FakeState } from './state.js';
import type { FakeUploadLimits } from './uploads.js';

/** Limits the fake enforces, all configurable. */
export interface FakeContentLimits {
  maxLength: number;
  richMaxLength: number;
  callbackDataBytes: number;
  /** How long a callback query may go unanswered. */
  callbackDeadlineMs: number;
}

/** Context every handler gets. */
export interface MethodContext {
  state: FakeState;
  bot: User;
  limits: FakeContentLimits;
  rich: boolean;
  drafts: boolean;
  now: number;
  /** Photo, file and caption limits of sendPhoto / sendDocument. */
  uploads: FakeUploadLimits;
}

export type Params = Record<string, unknown>;
export type Handler = (p: Params, ctx: MethodContext) => unknown;

export const bad = (description: string) => new ApiError(400, `Bad Request: ${description}`);

export function num(p: Params, key: string): number {
  const v = p[key];
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw bad(`${key} is required`);
  return n;
}

/** A chat id; Telegram answers "chat not found" for 0 (clients use that to probe for a method). */
export function chatIdOf(p: Params): number {
  const id = num(p, 'chat_id');
  if (id === 0) throw bad('chat not found');
  return id;
}

export function optNum(p: Params, key: string): number | undefined {
  return p[key] === undefined ? undefined : num(p, key);
}

function utf16Length(text: string): number {
  return text.length;
}

export function parseText(text: unknown, parseMode: unknown, ctx: MethodContext): string {
  if (typeof text !== 'string' || text.length === 0) throw bad('message text is empty');
  try {
    const visible = visibleText(text, typeof parseMode === 'string' ? parseMode : undefined);
    if (visible.trim().length === 0) throw bad('message text is empty');
    if (utf16Length(visible) > ctx.limits.maxLength)
      throw new ApiError(400, 'Bad Request: message is too long');
    return visible;
  } catch (err) {
    if (err instanceof EntityParseError) throw bad(`can't parse entities: ${err.message}`);
    throw err;
  }
}

export function parseRich(rich: unknown, ctx: MethodContext): string {
  if (typeof rich !== 'object' || rich === null) throw bad('rich_message is required');
  const r = rich as { markdown?: unknown; html?: unknown; blocks?: unknown };
  const given = [r.markdown, r.html, r.blocks].filter((v) => v !== undefined).length;
  if (given !== 1) throw bad('exactly one of html, markdown or blocks must be specified');
  let text: string;
  if (typeof r.markdown === 'string') text = r.markdown;
  else if (typeof r.html === 'string') {
    try {
      text = parseTelegramHtml(r.html, { anyTag: true });
    } catch (err) {
      if (err instanceof EntityParseError) throw bad(`can't parse entities: ${err.message}`);
      throw err;
    }
  } else text = JSON.stringify(r.blocks);
  if (text.trim().length === 0) throw bad('message text is empty');
  if (utf16Length(text) > ctx.limits.richMaxLength)
    throw new ApiError(400, 'Bad Request: message is too long');
  return text;
}

export function checkMarkup(markup: unknown, ctx: MethodContext): InlineKeyboardMarkup | undefined {
  if (markup === undefined) return undefined;
  const m = markup as InlineKeyboardMarkup;
  if (!Array.isArray(m.inline_keyboard)) throw bad("can't parse reply keyboard markup JSON object");
  for (const row of m.inline_keyboard) {
    for (const button of row) {
      if (!button.text) throw bad('text buttons are unallowed in the inline keyboard');
      const data = (button as { callback_data?: string }).callback_data;
      if (
        data !== undefined &&
        (data.length === 0 || Buffer.byteLength(data, 'utf8') > ctx.limits.callbackDataBytes)
      ) {
        throw bad('BUTTON_DATA_INVALID');
      }
    }
  }
  return m;
}
