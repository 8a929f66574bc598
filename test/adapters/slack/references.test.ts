/**
 * Slack's references (user mentions, channel links, broadcasts) in two
 * payloads recorded by others (test/fixtures/slack-recorded/SOURCES.md): a
 * real workspace's message with a channel link and a user mention, and an
 * Enterprise Grid mention whose ids start with `W`. The model reads them as
 * people see them (`#general`, `@Ann`), so it has no raw `<#C…>` or
 * `<@W…>` to repeat; and a channel link it does write reaches Slack as a
 * link, which shows the channel's name, instead of escaped markup.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readableSlackText } from '../../../adapters/slack/inbound.js';
import { slackMarkdown, slackMrkdwn } from '../../../adapters/slack/markdown.js';
import { nameEscapedMentions } from '../../../adapters/slack/outbound.js';
import { renderMarkdown } from '../../../src/bot/format/index.js';
import { startFakeSlack } from '../../fakes/slack/index.js';
import { startAdapter, stopAdapter } from './helpers.js';

const recorded = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/slack-recorded/${name}`, import.meta.url), 'utf8')) as {
    event: { text: string; user: string };
    authorizations?: Array<{ user_id: string }>;
    authed_users?: string[];
  };

/** users.info as the fake would answer it: a display name per id. */
const NAMES: Record<string, string> = { U043H11ES4V: 'Ann Lee', W222: 'Grace', W333: 'Bob' };
const nameOf = async (id: string) => NAMES[id] ?? id;

describe('Slack references', () => {
  it('reads a recorded message with a channel link and a user mention as people see it', async () => {
    const body = recorded('message_rich_text.json');
    const bot = body.authorizations?.[0]?.user_id ?? '';
    expect(await readableSlackText(body.event.text, bot, nameOf)).toBe(
      '#general :cat: @Ann Lee https://google.com text text text',
    );
  });

  it('reads an Enterprise Grid mention: the bot (W111) dropped, another W user named', async () => {
    const body = recorded('app_mention_enterprise.json');
    const bot = body.authed_users?.[0] ?? '';
    expect(await readableSlackText(body.event.text, bot, nameOf)).toBe('Hi there!');
    expect(
      await readableSlackText(
        `${body.event.text} ask <@W333>, <!here> and <!subteam^S1|@oncall>`,
        bot,
        nameOf,
      ),
    ).toBe('Hi there! ask @Bob, @here and @oncall');
    // A label Slack sent wins over a lookup.
    expect(await readableSlackText('<@W333|bobby> <#C111>', bot, nameOf)).toBe('@bobby #C111');
  });

  it('keeps a channel link the model writes as a link in mrkdwn; a user mention stays text', () => {
    const text = 'Ask in <#C043YJGBY49|general> or ping <@W111>.';
    expect(renderMarkdown(text, slackMrkdwn)).toBe('Ask in <#C043YJGBY49|general> or ping &lt;@W111&gt;.');
  });
});

describe('Slack user mentions the model writes', () => {
  it('are sent as the person’s name, in mrkdwn and in Markdown, when they may not notify', async () => {
    const names = async (id: string) => (id === 'W111' ? 'Grace' : id);
    const mrkdwn = renderMarkdown('Ask <@W111> or <@U2|bob> about <#C043YJGBY49|general>.', slackMrkdwn);
    expect(await nameEscapedMentions(mrkdwn, names)).toBe('Ask @Grace or @bob about <#C043YJGBY49|general>.');
    const markdown = renderMarkdown('Ask <@W111> now.', slackMarkdown);
    expect(await nameEscapedMentions(markdown, names)).toBe('Ask @Grace now.');
    // Mentions the policy lets notify are left as mentions.
    expect(await nameEscapedMentions('Ask <@W111>.', names)).toBe('Ask <@W111>.');
  });

  it('reach the fake Slack through the adapter as names', async () => {
    const fake = await startFakeSlack();
    try {
      const { adapter } = await startAdapter(fake);
      const text = renderMarkdown('Thanks <@W111>!', slackMrkdwn);
      const { messageId } = await adapter.send('slack:C1:1.5', { text, format: slackMrkdwn });
      expect(fake.botMessages('C1', '1.5').find((m) => m.ts === messageId)?.text).toBe('Thanks @w111!');
      await stopAdapter(fake, adapter);
    } finally {
      await fake.close();
    }
  });
});
