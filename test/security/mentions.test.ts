/**
 * The model cannot ping or spoof: what it writes as a link or a mention
 * reaches each platform as text that notifies nobody, and names quoted from
 * people read as themselves. Asserted on the text each platform receives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Dialect, MentionPolicy } from '../../src/bot/adapter-contract.js';
import { neutralizeRawMarkdown, renderMarkdown } from '../../src/bot/format/index.js';
import { say } from '../../src/bot/text.js';

const ALL: Dialect[] = ['telegram-html', 'slack-mrkdwn', 'discord-markdown', 'markdown', 'plain'];

describe('the model cannot ping or spoof', () => {
  it('Slack: special tokens and links to them stay text', () => {
    const out = renderMarkdown(
      'Hey <!channel> and <!here>, [x](!channel), [y](@U123), [z](!subteam^S1), <@U999> <#C1>',
      'slack-mrkdwn',
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
    const out = renderMarkdown('@everyone @here <@123> <@&456> <@!789> [x](<@123>)', 'discord-markdown');
    expect(out).not.toMatch(/(^|[^\u200b])@(everyone|here)/);
    expect(out).toContain('@\u200beveryone');
    // Every `<` of a mention is backslash-escaped, which Discord shows as text.
    expect(out).not.toMatch(/(^|[^\\])<@/);
  });

  it('Telegram: tg:// links to users are not links', () => {
    const out = renderMarkdown('[your admin](tg://user?id=42) and ![i](tg://user?id=43)', 'telegram-html');
    expect(out).not.toContain('<a ');
    expect(out).toContain('your admin (tg://user?id=42)');
  });

  it('web and mail links still work in every dialect', () => {
    for (const dialect of ALL) {
      const out = renderMarkdown('[docs](https://x.dev/a) and [mail](mailto:a@b.c)', dialect);
      expect(out, dialect).toContain('https://x.dev/a');
      if (dialect === 'telegram-html') expect(out).toContain('<a href="https://x.dev/a">docs</a>');
      if (dialect === 'slack-mrkdwn') expect(out).toContain('<https://x.dev/a|docs>');
    }
  });

  it('a name quoted from a person reads as itself, never as markup', () => {
    const name = '[boss](!channel) *star* @everyone <b>';
    expect(renderMarkdown(say.allowed(name), 'slack-mrkdwn')).toBe(
      '✅ Allowed by [boss](!channel) *star* @everyone &lt;b&gt;',
    );
    expect(renderMarkdown(say.denied(name), 'telegram-html')).toBe(
      '🚫 Denied by [boss](!channel) *star* @everyone &lt;b&gt;',
    );
    const discord = renderMarkdown(say.allowedSession(name), 'discord-markdown');
    expect(discord).toContain('@\u200beveryone');
    expect(discord).toContain('\\[boss\\]');
  });

  it('users and all keep the allowed mentions as written and nothing more', () => {
    const md = '<@U2> <!here> <@123> <@&456> @everyone [me](tg://user?id=42)';
    const users = { mentions: 'users' as const };
    expect(renderMarkdown(md, 'slack-mrkdwn', users)).toBe(
      '<@U2> &lt;!here&gt; <@123> &lt;@&amp;456&gt; @everyone <tg://user?id=42|me>',
    );
    expect(renderMarkdown(md, 'discord-markdown', users)).toContain('<@123> \\<@&456\\> @\u200beveryone');
    expect(renderMarkdown(md, 'telegram-html', users)).toContain('<a href="tg://user?id=42">me</a>');
    const all = renderMarkdown(md, 'discord-markdown', { mentions: 'all' });
    expect(all).toContain('<@&456> @everyone');
  });

  it('raw Markdown for native streams: live texts only grow, and the final one pings nobody', () => {
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
          const final = neutralizeRawMarkdown(text, policy, true);
          let shown = '';
          for (let i = 0; i <= text.length; i++) {
            const live = neutralizeRawMarkdown(text.slice(0, i), policy, false);
            expect(final.startsWith(live)).toBe(true);
            expect(live.startsWith(shown)).toBe(true);
            shown = live;
          }
          // Removing the zero-width spaces gives back the model's text.
          expect(final.replaceAll('\u200b', '')).toBe(text);
          expect(final).not.toMatch(
            /<!(here|channel|everyone)|(^|[^\w@.])@(everyone|here|channel)\b|\]\(\s*<?!/i,
          );
          if (policy === 'none')
            expect(final).not.toMatch(/<@[A-Z0-9]|<#(?!C)[A-Z0-9]|\btg:\/\/|\]\(\s*<?[@#]/i);
        },
      ),
      { numRuns: 300 },
    );
  });
});
