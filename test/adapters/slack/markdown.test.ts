/** Slack's dialects: mrkdwn for edited messages, Markdown for streams and markdown blocks. */
import { describe, expect, it } from 'vitest';
import { slackMarkdown, slackMrkdwn } from '../../../adapters/slack/markdown.js';
import { renderMarkdown, renderStatusLine } from '../../../src/bot/format/index.js';
import { SAMPLE_MARKDOWN } from '../../helpers/dialects.js';

describe('Slack mrkdwn', () => {
  it('renders bold, italics, strike, code and links as mrkdwn', () => {
    const out = renderMarkdown(SAMPLE_MARKDOWN, slackMrkdwn);
    expect(out).toContain('*Title*');
    expect(out).toContain(
      '*bold*, _it_, `a&lt;b`, ~gone~ &amp; &lt;tag&gt; <https://x.dev/?a=1&amp;b=2|docs>',
    );
    expect(out).toContain('```\nif (a &lt; b &amp;&amp; c) {}\n```');
    expect(renderMarkdown('see https://x.dev/a_b now', slackMrkdwn)).toBe('see <https://x.dev/a_b> now');
  });

  it('closes a partial reply and sets the status line in italics', () => {
    expect(renderMarkdown('run `npm te', slackMrkdwn, { partial: true })).toBe('run `npm te`');
    expect(renderStatusLine('⚙ Bash:\n npm test', slackMrkdwn)).toBe('_⚙ Bash: npm test_');
  });

  it('keeps a channel link as written in mrkdwn and in Markdown: it notifies nobody', () => {
    expect(renderMarkdown('see <#C1|general>', slackMrkdwn)).toBe('see <#C1|general>');
    expect(renderMarkdown('see <#C1|general>', slackMarkdown)).toBe('see <#C1|general>');
  });
});
