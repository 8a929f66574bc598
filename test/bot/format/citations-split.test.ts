/**
 * A reply whose list of cited pages is longer than one message: split for
 * each dialect, every page's link arrives whole in one of the messages.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCapabilities, Dialect } from '../../../src/bot/adapter-contract.js';
import { messageParts } from '../../../src/bot/stream/message-parts.js';
import { SourceList } from '../../../src/session/citations.js';
import { discordMarkdown, slackMrkdwn, telegramHtml } from '../../helpers/dialects.js';

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

/** Each dialect with the link to `url` as it writes it. */
const LINK: [Dialect, (url: string) => RegExp][] = [
  [telegramHtml, (url) => new RegExp(`<a href="${esc(url.replace(/&/g, '&amp;'))}">[^<]*Page \\d+`)],
  [slackMrkdwn, (url) => new RegExp(`<${esc(url.replace(/&/g, '&amp;'))}\\|Page \\d+`)],
  [discordMarkdown, (url) => new RegExp(`\\[Page \\d+.*\\]\\(<${esc(url)}>\\)`)],
];
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('cited pages across a split reply', () => {
  it.each(LINK.map(([dialect, link]) => [dialect.name, dialect, link] as const))(
    '%s: every page is one whole link in exactly one message',
    (_name, dialect, link) => {
      const parts = messageParts(reply(), 0, undefined, {
        caps: caps(dialect),
        dialect,
        raw: false,
        final: true,
        statusRoom: false,
      });
      expect(parts.length).toBeGreaterThan(2);
      for (const part of parts) expect(part.rendered.length).toBeLessThanOrEqual(700);
      for (const page of PAGES) {
        const holding = parts.filter((p) => link(page.url).test(p.rendered));
        expect(holding, page.url).toHaveLength(1);
      }
    },
  );
});
