/**
 * How Telegram writes formatted text. Classic messages take Telegram's HTML
 * subset (parse_mode HTML: https://core.telegram.org/bots/api#html-style);
 * a server with rich messages takes standard Markdown, and its drafts
 * render the model's Markdown as written. Telegram's one mention a text can
 * make is a link to `tg://user?id=…`: a link only where the chat's mention
 * policy allows users.
 */
import {
  type Dialect,
  escapeHtml,
  escapeHtmlAttribute,
  isSafeLinkTarget,
  type MentionRules,
  markdown,
  type Syntax,
} from '../../src/bot/format/dialect.js';

const mentions: MentionRules = { userLink: /^tg:\/\/user\?id=\d+$/i };

const htmlSyntax: Syntax = {
  text: escapeHtml,
  strong: (s) => `<b>${s}</b>`,
  emphasis: (s) => `<i>${s}</i>`,
  strike: (s) => `<s>${s}</s>`,
  inlineCode: (v) => `<code>${escapeHtml(v)}</code>`,
  link: (url, inner) => `<a href="${escapeHtmlAttribute(url)}">${inner}</a>`,
  // Telegram has no headings: a bold line reads as one.
  heading: (_d, inner) => `<b>${inner}</b>`,
  code: (v, lang) =>
    lang
      ? `<pre><code class="language-${escapeHtmlAttribute(lang)}">${escapeHtml(v)}</code></pre>`
      : `<pre>${escapeHtml(v)}</pre>`,
  preformatted: (v) => `<pre>${escapeHtml(v)}</pre>`,
  quote: (inner) => `<blockquote>${inner}</blockquote>`,
  bullet: '• ',
  rule: '──────────',
  keepsTables: false,
  linkAllowed: isSafeLinkTarget,
};

/** Telegram's HTML subset, for classic messages. */
export const telegramHtml: Dialect = { name: 'telegram-html', syntax: htmlSyntax, mentions };

/**
 * Standard Markdown, for a server with rich messages. A draft carries the
 * model's text as written, with a `tg://` link target broken unless the
 * policy allows mentions of users.
 */
export const telegramMarkdown: Dialect = {
  name: 'telegram-markdown',
  syntax: markdown.syntax,
  mentions,
  rawMarkdown: {
    breaks: { none: /\btg(?=:\/\/)/gi },
    undecided: [[/\btg:?\/?$/i, 2]],
  },
};
