/** Telegram's dialects: the HTML subset of classic messages and rich messages' Markdown. */
import { describe, expect, it } from 'vitest';
import { telegramHtml, telegramMarkdown } from '../../../adapters/telegram/markdown.js';
import { renderMarkdown, renderStatusLine } from '../../../src/bot/format/index.js';
import { SAMPLE_MARKDOWN } from '../../helpers/dialects.js';

describe('Telegram HTML', () => {
  it('escapes, shows headings as bold, code with its language and tables as pre', () => {
    const html = renderMarkdown(SAMPLE_MARKDOWN, telegramHtml);
    expect(html).toContain('<b>Title</b>');
    expect(html).toContain('<b>bold</b>, <i>it</i>, <code>a&lt;b</code>, <s>gone</s> &amp; &lt;tag&gt;');
    expect(html).toContain('<a href="https://x.dev/?a=1&amp;b=2">docs</a>');
    expect(html).toContain('• one\n• two');
    expect(html).toContain('<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>');
    expect(html).toContain('<pre>name | n\n-----+--\nab   | 1</pre>');
  });

  it('closes a partial reply instead of showing stray markers', () => {
    expect(renderMarkdown('hello **wor', telegramHtml, { partial: true })).toBe('hello <b>wor</b>');
    expect(renderMarkdown('see [the docs](https://ex', telegramHtml, { partial: true })).toBe('see the docs');
    expect(renderMarkdown('```py\nprint(1 < 2)', telegramHtml, { partial: true })).toBe(
      '<pre><code class="language-py">print(1 &lt; 2)</code></pre>',
    );
  });

  it('sets the status line in italics', () => {
    expect(renderStatusLine('⚙ Bash: a<b', telegramHtml)).toBe('<i>⚙ Bash: a&lt;b</i>');
  });
});

describe('Telegram rich Markdown', () => {
  it('is standard Markdown with tables kept', () => {
    expect(renderMarkdown(SAMPLE_MARKDOWN, telegramMarkdown)).toContain(
      '| name | n |\n| --- | --- |\n| ab | 1 |',
    );
  });
});
