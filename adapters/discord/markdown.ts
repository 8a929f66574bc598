/**
 * How Discord writes formatted text: its Markdown (headings down to `###`,
 * no tables: https://support.discord.com/hc/en-us/articles/210298617).
 * Discord pings for `<@id>` (a user), `<@&id>` (a role) and the plain words
 * `@everyone` and `@here`; the adapter's `allowed_mentions` is the second
 * lock on each.
 */
import { type Dialect, markdownSyntax } from '../../src/bot/format/dialect.js';

/**
 * Discord pings everyone for `@everyone` and `@here` in plain text (mentions
 * in `<@…>` form are already escaped with their `<`). A zero-width space
 * after the `@` keeps the words and loses the ping.
 */
const defuseMassMentions = (s: string) => s.replace(/@(everyone|here)\b/gi, '@\u200b$1');

/** Discord's Markdown. */
export const discordMarkdown: Dialect = {
  name: 'discord-markdown',
  syntax: markdownSyntax({ headingMax: 3, keepsTables: false, defuse: defuseMassMentions }),
  mentions: {
    user: /<@!?\d+>/,
    mass: /<@&\d+>|@everyone\b|@here\b/,
  },
};
