/**
 * The model cannot ping or spoof: what it writes as a link or a mention
 * reaches each platform as text that notifies nobody, and names quoted from
 * people read as themselves. Asserted on the text each platform receives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Dialect, MentionPolicy } from '../../src/bot/adapter-contract.js';
import { rawMarkdownText, renderMarkdown } from '../../src/bot/format/index.js';
import { say } from '../../src/bot/text.js';
import {
  discordMarkdown,
  EVERY_DIALECT,
  slackMarkdown,
  slackMrkdwn,
  telegramHtml,
  telegramMarkdown,
} from '../helpers/dialects.js';

describe('the model cannot ping or spoof', () => {
  it('Slack: special tokens and links to them stay text', () => {
    const out = renderMarkdown(
      'Hey <!channel> and <!here>, [x](!channel), [y](@U123), [z](!subteam^S1), <@U999> <#C1>',
      slackMrkdwn,
    );
    // Slack reads a ping only inside `<…>`: no `<` survives except around a web link and a
    // channel link, which notifies nobody and shows as the channel's name.
    expect(out).not.toMatch(/<[!@]|<#(?!C1>)/);
    expect(out).toContain('<#C1>');
    expect(out).toContain('&lt;!channel&gt;');
    expect(out).toContain('x (!channel)');
    expect(out).toContain('y (@U123)');
  });

  it('Discord: @everyone, @here, user and role mentions stay text', () => {
    const out = renderMarkdown('@everyone @here <@123> <@&456> <@!789> [x](<@123>)', discordMarkdown);
    expect(out).not.toMatch(/(^|[^\u200b])@(everyone|here)/);
    expect(out).toContain('@\u200beveryone');
    // Every `<` of a mention is backslash-escaped, which Discord shows as text.
    expect(out).not.toMatch(/(^|[^\\])<@/);
  });

  it('Telegram: tg:// links to users are not links', () => {
    const out = renderMarkdown('[your admin](tg://user?id=42) and ![i](tg://user?id=43)', telegramHtml);
    expect(out).not.toContain('<a ');
    expect(out).toContain('your admin (tg://user?id=42)');
  });

  it('web and mail links still work in every dialect', () => {
    for (const dialect of EVERY_DIALECT) {
      const out = renderMarkdown('[docs](https://x.dev/a) and [mail](mailto:a@b.c)', dialect);
      expect(out, dialect.name).toContain('https://x.dev/a');
      if (dialect === telegramHtml) expect(out).toContain('<a href="https://x.dev/a">docs</a>');
      if (dialect === slackMrkdwn) expect(out).toContain('<https://x.dev/a|docs>');
    }
  });

  it('a name quoted from a person reads as itself, never as markup', () => {
    const name = '[boss](!channel) *star* @everyone <b>';
    expect(renderMarkdown(say.allowed(name), slackMrkdwn)).toBe(
      '✅ Allowed by [boss](!channel) *star* @everyone &lt;b&gt;',
    );
    expect(renderMarkdown(say.denied(name), telegramHtml)).toBe(
      '🚫 Denied by [boss](!channel) *star* @everyone &lt;b&gt;',
    );
    const discord = renderMarkdown(say.allowedSession(name), discordMarkdown);
    expect(discord).toContain('@\u200beveryone');
    expect(discord).toContain('\\[boss\\]');
  });

  it('users and all keep the allowed mentions as written and nothing more', () => {
    const md = '<@U2> <!here> <@123> <@&456> @everyone [me](tg://user?id=42)';
    const users = { mentions: 'users' as const };
    // Each platform keeps its own tokens; another platform's are text like any other.
    expect(renderMarkdown(md, slackMrkdwn, users)).toBe(
      '<@U2> &lt;!here&gt; &lt;@123&gt; &lt;@&amp;456&gt; @everyone me (tg://user?id=42)',
    );
    expect(renderMarkdown(md, slackMarkdown, users)).toContain('<@U2> \\<!here\\> \\<@123\\>');
    expect(renderMarkdown(md, discordMarkdown, users)).toContain('<@123> \\<@&456\\> @\u200beveryone');
    expect(renderMarkdown(md, telegramHtml, users)).toBe(
      '&lt;@U2&gt; &lt;!here&gt; &lt;@123&gt; &lt;@&amp;456&gt; @everyone <a href="tg://user?id=42">me</a>',
    );
    expect(renderMarkdown(md, telegramMarkdown, users)).toContain('[me](<tg://user?id=42>)');
    const all = renderMarkdown(md, discordMarkdown, { mentions: 'all' });
    expect(all).toContain('<@&456> @everyone');
    expect(renderMarkdown(md, slackMrkdwn, { mentions: 'all' })).toContain('<@U2> <!here>');
  });

  /** What each dialect that streams raw Markdown must never carry, per policy. */
  const RAW: [Dialect, Partial<Record<MentionPolicy, RegExp>>][] = [
    [
      slackMarkdown,
      {
        none: /<!(here|channel|everyone)|(^|[^\w@.])@(everyone|here|channel)\b|\]\(\s*<?[!@#]|<@[A-Z0-9]|<#(?!C)[A-Z0-9]/i,
        users: /<!(here|channel|everyone)|(^|[^\w@.])@(everyone|here|channel)\b|\]\(\s*<?!/i,
      },
    ],
    [telegramMarkdown, { none: /\btg:\/\//i }],
  ];

  it.each(RAW.map(([dialect, forbidden]) => [dialect.name, dialect, forbidden] as const))(
    '%s: raw Markdown for native streams: live texts only grow, and the final one pings nobody',
    (_name, dialect, forbidden) => {
      const rules = dialect.rawMarkdown!;
      const piece = fc.constantFrom(
        '<',
        '!',
        '@',
        '#',
        'here',
        'channel',
        'everyone',
        'U2',
        '&',
        '](',
        '[x',
        ')',
        'tg',
        '://user?id=1',
        ' ',
        'a',
        '>',
        '\\',
      );
      fc.assert(
        fc.property(
          fc.array(piece, { maxLength: 30 }),
          fc.constantFrom<MentionPolicy>('none', 'users'),
          (pieces, policy) => {
            const text = pieces.join('');
            const final = rawMarkdownText(text, rules, policy, true);
            let shown = '';
            for (let i = 0; i <= text.length; i++) {
              const live = rawMarkdownText(text.slice(0, i), rules, policy, false);
              expect(final.startsWith(live)).toBe(true);
              expect(live.startsWith(shown)).toBe(true);
              shown = live;
            }
            // Removing the zero-width spaces gives back the model's text.
            expect(final.replaceAll('\u200b', '')).toBe(text);
            const never = forbidden[policy];
            if (never) expect(final).not.toMatch(never);
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
