/**
 * How Teams renders a bot's Markdown, as a {@link Syntax} the core's renderer
 * can use for Teams chats. "Format your bot messages"
 * (https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/format-your-bot-messages)
 * lists what a `textFormat: markdown` message shows: bold, italic,
 * strikethrough, headers (levels 1-3), lists, block quotes, preformatted
 * text, links and horizontal rules. It also says text-only messages do not
 * show tables, so a table is drawn as monospace text; and Teams reads a
 * subset of HTML tags in the same text, so `<` and `>` are always escaped.
 * `test/adapters/teams/markdown.test.ts` states its rules.
 *
 * Mentions need an entity beside the text (`<at>Name</at>` plus a mention
 * entity), which the adapter never sends, and `<` is always escaped: the
 * model's text can ping nobody, whatever the mention policy.
 */

import {
  type Dialect,
  fenceFor,
  isSafeLinkTarget,
  markdownInlineCode,
  type Syntax,
} from '../../src/bot/format/dialect.js';

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

/** Teams' Markdown subset, as the renderer spells it. */
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

/** The dialect of every Teams chat: its Markdown subset. */
export const teamsMarkdown: Dialect = { name: 'teams-markdown', syntax: TEAMS_MARKDOWN };
