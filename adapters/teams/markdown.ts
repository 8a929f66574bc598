/**
 * How Teams renders a bot's Markdown, as a {@link Syntax} the core's renderer
 * can use for Teams chats. "Format your bot messages"
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/format-your-bot-messages)
 * lists what a `textFormat: markdown` message shows: bold, italic,
 * strikethrough, headers (levels 1-3), lists, block quotes, preformatted
 * text, links and horizontal rules. It also says text-only messages do not
 * show tables, so a table is drawn as monospace text; and Teams reads a
 * subset of HTML tags in the same text, so `<` and `>` are always escaped.
 *
 * Until the dialect is something each adapter hands the core, Teams chats
 * are declared the core's `markdown` dialect (CommonMark with tables kept);
 * this table is what the core should use instead, and
 * `test/adapters/teams/markdown.test.ts` states its rules.
 */

import { isSafeLinkTarget } from '../../src/bot/format/links.js';
import type { Syntax } from '../../src/bot/format/syntax.js';
import { fenceFor, markdownInlineCode } from '../../src/bot/format/syntax.js';

/** Backslash-escapes what Teams' Markdown or its HTML subset could read as markup. */
export function escapeTeams(s: string): string {
  return s
    .replace(/[\\`*_~[\]<>|#]/g, '\\$&')
    .replace(/^([ \t]*)([+-]|\d+[.)])(?=\s|$)/gm, (_m, sp: string, mk: string) =>
      mk.length > 1 ? `${sp}${mk.slice(0, -1)}\\${mk.slice(-1)}` : `${sp}\\${mk}`,
    );
}

const quoteLines = (inner: string) =>
  inner
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');

/** Teams' Markdown subset. */
export const TEAMS_MARKDOWN: Syntax = {
  text: escapeTeams,
  strong: (s) => `**${s}**`,
  emphasis: (s) => `*${s}*`,
  strike: (s) => `~~${s}~~`,
  inlineCode: markdownInlineCode,
  link: (url, inner) => {
    const target = url.replace(/[()<>\s]/g, encodeURIComponent);
    return inner === escapeTeams(url) ? target : `[${inner}](${target})`;
  },
  // Teams shows three levels of header; deeper ones read as the third.
  heading: (depth, inner) => `${'#'.repeat(Math.min(depth, 3))} ${inner}`,
  code: (value, lang) => {
    const fence = fenceFor(value);
    return `${fence}${lang ?? ''}\n${value}\n${fence}`;
  },
  preformatted: (value) => {
    const fence = fenceFor(value);
    return `${fence}\n${value}\n${fence}`;
  },
  quote: quoteLines,
  bullet: '- ',
  rule: '---',
  // "Text-only messages don't support table formatting."
  keepsTables: false,
  linkAllowed: isSafeLinkTarget,
};
