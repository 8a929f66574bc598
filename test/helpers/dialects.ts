/**
 * Every dialect the bot renders in, for tests that hold for all of them: the
 * core's two and each platform's own (from its adapter's folder).
 */

import { discordMarkdown } from '../../adapters/discord/markdown.js';
import { slackMarkdown, slackMrkdwn } from '../../adapters/slack/markdown.js';
import { teamsMarkdown } from '../../adapters/teams/markdown.js';
import { telegramHtml, telegramMarkdown } from '../../adapters/telegram/markdown.js';
import type { Dialect } from '../../src/bot/adapter-contract.js';
import { markdown, plain } from '../../src/bot/format/dialect.js';

export {
  discordMarkdown,
  markdown,
  plain,
  slackMarkdown,
  slackMrkdwn,
  teamsMarkdown,
  telegramHtml,
  telegramMarkdown,
};

/** Each dialect once. */
export const EVERY_DIALECT: readonly Dialect[] = [
  telegramHtml,
  telegramMarkdown,
  slackMrkdwn,
  slackMarkdown,
  discordMarkdown,
  teamsMarkdown,
  markdown,
  plain,
];

/** A reply with one of each common construct, for each dialect's rendering test. */
export const SAMPLE_MARKDOWN = [
  '# Title',
  '',
  'Some **bold**, _it_, `a<b`, ~~gone~~ & <tag> [docs](https://x.dev/?a=1&b=2)',
  '',
  '- one',
  '- two',
  '',
  '```ts',
  'if (a < b && c) {}',
  '```',
  '',
  '| name | n |',
  '|------|---|',
  '| ab | 1 |',
].join('\n');
