/**
 * Citations as the chat shows them: each cited source gets a number the
 * first time it is cited in a turn; the text that cites it is followed by
 * `[n]`, and the reply ends with the numbered sources as Markdown links,
 * which every chat dialect renders as links (src/bot/format). The stored
 * history keeps the API's citation objects untouched; this is display only.
 */
import type { ApiBlock, ContentBlock } from './types.js';

interface Source {
  n: number;
  title: string;
  url?: string;
}

/** The sources cited in one turn, numbered in order of first citation. */
export class SourceList {
  readonly #sources = new Map<string, Source>();
  /** Pages web fetch read in this turn, by title: their citations name the document, not the URL. */
  readonly #fetched = new Map<string, string>();

  /**
   * Notes the page of a `web_fetch_tool_result` (Web fetch tool page: a
   * fetched page is a document, cited by `char_location` with its
   * `document_title`), so a citation of it links to where it was read.
   */
  learn(block: ApiBlock): void {
    if (block.type !== 'web_fetch_tool_result') return;
    const result = block.content as { url?: unknown; content?: { title?: unknown } } | undefined;
    const url = result?.url;
    const title = result?.content?.title;
    if (typeof url === 'string' && /^https?:\/\//.test(url))
      this.#fetched.set(typeof title === 'string' && title ? title : url, url);
  }

  /** The `[n]` marks for a text block's citations (numbers given on first sight), e.g. ` [1][2]`. */
  refs(citations: readonly ApiBlock[]): string {
    const numbers = new Set<number>();
    for (const citation of citations) {
      const title = [citation.title, citation.document_title, citation.cited_text].find(
        (v): v is string => typeof v === 'string' && v.length > 0,
      );
      const url =
        typeof citation.url === 'string'
          ? citation.url
          : typeof citation.document_title === 'string'
            ? this.#fetched.get(citation.document_title)
            : undefined;
      const key = url ?? title ?? JSON.stringify(citation);
      let source = this.#sources.get(key);
      if (!source) {
        source = {
          n: this.#sources.size + 1,
          title: (title ?? url ?? 'source').slice(0, 200),
          ...(url ? { url } : {}),
        };
        this.#sources.set(key, source);
      }
      numbers.add(source.n);
    }
    return numbers.size > 0 ? ` ${[...numbers].map((n) => `[${n}]`).join('')}` : '';
  }

  /** The reply's text blocks joined, each followed by the marks of its citations. */
  display(content: readonly ContentBlock[]): string {
    return content
      .map((b) => (b.type === 'text' ? b.text + (b.citations ? this.refs(b.citations) : '') : ''))
      .join('');
  }

  /** The list under the reply (`Sources:` and one numbered line each), or undefined when nothing was cited. */
  footer(): string | undefined {
    if (this.#sources.size === 0) return undefined;
    const lines = [...this.#sources.values()].map((s) =>
      s.url ? `[${s.n}] [${literal(s.title)}](${s.url})` : `[${s.n}] ${literal(s.title)}`,
    );
    return `Sources:\n${lines.join('\n')}`;
  }
}

/**
 * A page's title as literal text: every ASCII punctuation mark escaped
 * (CommonMark lets any of them be), so a title written by a stranger can
 * neither end the link early nor turn into emphasis, code or a link.
 */
function literal(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
