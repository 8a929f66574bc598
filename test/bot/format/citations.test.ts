/**
 * The cited pages listed under a reply (src/session/citations.ts writes them
 * as Markdown) reach every chat dialect as links, the `[n]` marks as text.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/bot/format/index.js';
import { SourceList } from '../../../src/session/citations.js';
import { discordMarkdown, markdown, plain, slackMrkdwn, telegramHtml } from '../../helpers/dialects.js';

const citation = (url: string, title: string) => ({
  type: 'web_search_result_location',
  url,
  title,
  cited_text: 'text',
  encrypted_index: 'x',
});

describe('citations in each dialect', () => {
  const sources = new SourceList();
  const text = sources.display([
    {
      type: 'text',
      text: 'Ginza opens Friday.',
      citations: [citation('https://apple.example/ginza?a=1&b=2', 'Apple [Ginza]')],
    },
    { type: 'text', text: ' AI news too.', citations: [citation('https://news.example/ai', 'AI news')] },
  ]);
  const reply = `${text}\n\n${sources.footer()}`;

  it('numbers the sources in order of first citation', () => {
    expect(text).toBe('Ginza opens Friday. [1] AI news too. [2]');
  });

  it.each([
    [telegramHtml, '<a href="https://apple.example/ginza?a=1&amp;b=2">Apple [Ginza]</a>'],
    [slackMrkdwn, '<https://apple.example/ginza?a=1&amp;b=2|Apple [Ginza]>'],
    [discordMarkdown, '[Apple \\[Ginza\\]](<https://apple.example/ginza?a=1&b=2>)'],
    [markdown, '[Apple \\[Ginza\\]](<https://apple.example/ginza?a=1&b=2>)'],
  ] as const)('%s shows the cited page as a link', (dialect, link) => {
    const out = renderMarkdown(reply, dialect);
    expect(out).toContain(link);
    // The marks are text: Markdown dialects escape their brackets so they never turn into links.
    expect(out).toMatch(/\\?\[1\\?\]/);
    expect(out).toMatch(/\\?\[2\\?\]/);
  });

  it('plain text keeps the titles and the addresses', () => {
    const out = renderMarkdown(reply, plain);
    expect(out).toContain('Apple [Ginza]');
    expect(out).toContain('https://news.example/ai');
  });
});
