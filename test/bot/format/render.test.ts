import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderStatusLine, toPlainText } from '../../../src/bot/format/index.js';
import { discordMarkdown, markdown, plain, slackMrkdwn, telegramHtml } from '../../helpers/dialects.js';

const sample = [
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

describe('renderMarkdown', () => {
  it('renders Telegram HTML with escaping, headings as bold, code with language and tables as pre', () => {
    const html = renderMarkdown(sample, telegramHtml);
    expect(html).toContain('<b>Title</b>');
    expect(html).toContain('<b>bold</b>, <i>it</i>, <code>a&lt;b</code>, <s>gone</s> &amp; &lt;tag&gt;');
    expect(html).toContain('<a href="https://x.dev/?a=1&amp;b=2">docs</a>');
    expect(html).toContain('• one\n• two');
    expect(html).toContain('<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>');
    expect(html).toContain('<pre>name | n\n-----+--\nab   | 1</pre>');
  });

  it('renders Slack mrkdwn', () => {
    const out = renderMarkdown(sample, slackMrkdwn);
    expect(out).toContain('*Title*');
    expect(out).toContain(
      '*bold*, _it_, `a&lt;b`, ~gone~ &amp; &lt;tag&gt; <https://x.dev/?a=1&amp;b=2|docs>',
    );
    expect(out).toContain('```\nif (a &lt; b &amp;&amp; c) {}\n```');
  });

  it('renders Discord Markdown with escaped literals and tables in code blocks', () => {
    const out = renderMarkdown(`${sample}\n\nsnake_case and 2*3`, discordMarkdown);
    expect(out).toContain('# Title');
    expect(out).toContain('**bold**');
    expect(out).toContain('```ts\nif (a < b && c) {}\n```');
    expect(out).toContain('```\nname | n');
    expect(out).toContain('snake\\_case and 2\\*3');
    expect(renderMarkdown('#### deep', discordMarkdown)).toBe('### deep');
    expect(renderMarkdown('see https://x.dev/a_b now', discordMarkdown)).toBe('see <https://x.dev/a_b> now');
    expect(renderMarkdown('see https://x.dev/a_b now', slackMrkdwn)).toBe('see <https://x.dev/a_b> now');
  });

  it('keeps tables in normalized Markdown', () => {
    const out = renderMarkdown(sample, markdown);
    expect(out).toContain('| name | n |\n| --- | --- |\n| ab | 1 |');
  });

  it('strips markup for plain text', () => {
    expect(toPlainText('**a** _b_ `c` [d](https://e.f)')).toBe('a b c d (https://e.f)');
    expect(renderMarkdown('# H\n\n> q', plain)).toBe('H\n\n│ q');
  });

  it('closes a partial reply instead of showing stray markers', () => {
    expect(renderMarkdown('hello **wor', telegramHtml, { partial: true })).toBe('hello <b>wor</b>');
    expect(renderMarkdown('run `npm te', slackMrkdwn, { partial: true })).toBe('run `npm te`');
    expect(renderMarkdown('see [the docs](https://ex', telegramHtml, { partial: true })).toBe('see the docs');
    expect(renderMarkdown('text **', discordMarkdown, { partial: true })).toBe('text');
    expect(renderMarkdown('```py\nprint(1 < 2)', telegramHtml, { partial: true })).toBe(
      '<pre><code class="language-py">print(1 &lt; 2)</code></pre>',
    );
  });

  it('renders a status line per dialect, cut to one short line', () => {
    expect(renderStatusLine('⚙ Bash: a<b', telegramHtml)).toBe('<i>⚙ Bash: a&lt;b</i>');
    expect(renderStatusLine('⚙ Bash:\n npm test', slackMrkdwn)).toBe('_⚙ Bash: npm test_');
    expect(renderStatusLine('x'.repeat(300), plain).length).toBe(100);
  });
});
