/**
 * A reply whose list of cited pages is longer than one message: split for
 * each dialect, every page's link arrives whole in one of the messages.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCapabilities, Dialect } from '../../../src/bot/adapter-contract.js';
import { messageParts } from '../../../src/bot/stream/message-parts.js';
import { SourceList } from '../../../src/session/citations.js';

const PAGES = Array.from({ length: 30 }, (_, i) => ({
  url: `https://site${i}.example/articles/${i}?q=web&n=${i}`,
  title: `Page ${i}: a [long] *title* with <markup> to check the split`,
}));

function reply(): string {
  const sources = new SourceList();
  const text = sources.display(
    PAGES.map((p, i) => ({
      type: 'text' as const,
      text: `Finding number ${i} is described at some length so that the reply fills several messages. `,
      citations: [{ type: 'web_search_result_location', url: p.url, title: p.title, cited_text: 'x' }],
    })),
  );
  return `${text}\n\n${sources.footer()}`;
}

const caps = (dialect: Dialect): ChatCapabilities => ({
  maxMessageLength: 700,
  minEditIntervalMs: 0,
  dialect,
  nativeStream: false,
  buttonPayloadLimit: 64,
  typingIntervalMs: 0,
});

/** The link to `url` as each dialect writes it. */
const LINK: Record<string, (url: string) => RegExp> = {
  'telegram-html': (url) => new RegExp(`<a href="${esc(url.replace(/&/g, '&amp;'))}">[^<]*Page \\d+`),
  'slack-mrkdwn': (url) => new RegExp(`<${esc(url.replace(/&/g, '&amp;'))}\\|Page \\d+`),
  'discord-markdown': (url) => new RegExp(`\\[Page \\d+.*\\]\\(<${esc(url)}>\\)`),
};
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('cited pages across a split reply', () => {
  it.each(Object.keys(LINK))('%s: every page is one whole link in exactly one message', (dialect) => {
    const parts = messageParts(reply(), 0, undefined, {
      caps: caps(dialect as Dialect),
      dialect: dialect as Dialect,
      raw: false,
      final: true,
      statusRoom: false,
    });
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) expect(part.rendered.length).toBeLessThanOrEqual(700);
    for (const page of PAGES) {
      const holding = parts.filter((p) => LINK[dialect]?.(page.url).test(p.rendered));
      expect(holding, page.url).toHaveLength(1);
    }
  });
});
