/**
 * The model cannot ping or spoof: what it writes as a link or a mention
 * reaches each platform as text that notifies nobody, and names quoted from
 * people read as themselves. Asserted on the text each platform receives.
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/bot/adapter-contract.js';
import { renderMarkdown } from '../../src/bot/format/index.js';
import { say } from '../../src/bot/text.js';

const ALL: Dialect[] = ['telegram-html', 'slack-mrkdwn', 'discord-markdown', 'markdown', 'plain'];

describe('the model cannot ping or spoof', () => {
  it('Slack: special tokens and links to them stay text', () => {
    const out = renderMarkdown(
      'Hey <!channel> and <!here>, [x](!channel), [y](@U123), [z](!subteam^S1), <@U999> <#C1>',
      'slack-mrkdwn',
    );
    // Slack reads a ping only inside `<…>`: no `<` survives except around a web link.
    expect(out).not.toMatch(/<[!@#]/);
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
});
