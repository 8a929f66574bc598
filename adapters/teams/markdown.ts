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

import { type Dialect, escapeMarkdown, markdownSyntax, type Syntax } from '../../src/bot/format/dialect.js';

/** A `#` not already escaped (after an even run of backslashes, none included). */
const BARE_HASH = /(?<=(?:^|[^\\])(?:\\\\)*)#/gm;

/**
 * Backslash-escapes what Teams' Markdown or its HTML subset could read as
 * markup: the core's Markdown escaping, and `#` anywhere, not only where it
 * would start a header.
 */
export function escapeTeams(s: string): string {
  return escapeMarkdown(s).replace(BARE_HASH, '\\#');
}

const quoteLines = (inner: string) =>
  inner
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');

/**
 * Teams' Markdown subset, as the renderer spells it: the core's Markdown
 * with three levels of header and tables drawn as text ("Text-only messages
 * don't support table formatting"), and two differences of its own. Links are
 * written without angle brackets (Teams would read `<…>` as its HTML), and a
 * blank line in a quote stays `>`.
 */
export const TEAMS_MARKDOWN: Syntax = {
  ...markdownSyntax({ headingMax: 3, keepsTables: false }),
  text: escapeTeams,
  link: (url, inner) => {
    const target = url.replace(/[()<>\s]/g, encodeURIComponent);
    return inner === escapeTeams(url) ? target : `[${inner}](${target})`;
  },
  quote: quoteLines,
};

/** The dialect of every Teams chat: its Markdown subset. */
export const teamsMarkdown: Dialect = { name: 'teams-markdown', syntax: TEAMS_MARKDOWN };
