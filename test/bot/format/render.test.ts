/**
 * The core's two dialects; each platform's own is tested beside its adapter
 * (test/adapters/<platform>/markdown.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  RenderCache,
  renderIncremental,
  renderMarkdown,
  renderStatusLine,
  toPlainText,
} from '../../../src/bot/format/index.js';
import { markdown, plain, SAMPLE_MARKDOWN } from '../../helpers/dialects.js';

describe('renderMarkdown', () => {
  it('keeps tables in normalized Markdown', () => {
    const out = renderMarkdown(SAMPLE_MARKDOWN, markdown);
    expect(out).toContain('| name | n |\n| --- | --- |\n| ab | 1 |');
  });

  it('strips markup for plain text', () => {
    expect(toPlainText('**a** _b_ `c` [d](https://e.f)')).toBe('a b c d (https://e.f)');
    expect(renderMarkdown('# H\n\n> q', plain)).toBe('H\n\n│ q');
  });

  it('renders a status line cut to one short line', () => {
    expect(renderStatusLine('x'.repeat(300), plain).length).toBe(100);
    expect(renderStatusLine('⚙ Bash: a_b', markdown)).toBe('*⚙ Bash: a\\_b*');
  });

  it('keys its caches on the dialect object, so two dialects named alike never share a rendering', () => {
    const twin = { ...markdown, syntax: { ...markdown.syntax, strong: (s: string) => `<${s}>` } };
    const cache = new RenderCache();
    expect(renderIncremental('**a**', markdown, false, cache)).toBe('**a**');
    expect(renderIncremental('**a**', twin, false, cache)).toBe('<a>');
  });
});
