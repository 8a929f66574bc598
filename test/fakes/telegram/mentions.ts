/**
 * Which users a bot message mentions by id, as Telegram reads it: a link to
 * `tg://user?id=<user_id>` mentions that user (core.telegram.org/bots/api,
 * "Formatting options": "tg://user?id=<user_id> can be used to mention a
 * user by their identifier without using a username"). In HTML that is an
 * `<a href>`; in Markdown a link `[label](…)` or an autolink `<…>`. Bare
 * text is not a link (Markdown links only what its syntax marks, and web
 * addresses), and a backslash-escaped bracket opens nothing.
 */
import type { FakeMessage } from './state.js';

const HTML_LINK = /<a\s+href\s*=\s*"tg:\/\/user\?id=(\d+)"/gi;
const MARKDOWN_LINK = /(?<!\\)\]\(\s*<?tg:\/\/user\?id=(\d+)|(?<!\\)<tg:\/\/user\?id=(\d+)>/gi;

function idsIn(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => Number(m[1] ?? m[2]));
}

/** The user ids `message` mentions through tg://user links. */
export function telegramMentions(message: FakeMessage): number[] {
  if (message.rich) {
    const rich = JSON.parse(message.source) as { markdown?: string; html?: string };
    if (rich.markdown !== undefined) return idsIn(rich.markdown, MARKDOWN_LINK);
    return idsIn(rich.html ?? '', HTML_LINK);
  }
  if (message.parseMode === 'HTML') return idsIn(message.source, HTML_LINK);
  if (message.parseMode === 'MarkdownV2' || message.parseMode === 'Markdown')
    return idsIn(message.source, MARKDOWN_LINK);
  return [];
}
