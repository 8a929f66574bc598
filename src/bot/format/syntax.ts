/**
 * How a dialect spells inline and block markup. The renderer walks the mdast
 * tree once and asks the dialect's {@link Syntax} for every node, so a
 * dialect is data plus a few small functions, not a second renderer. The
 * pieces several dialects share (escapers, fences, the Markdown markup
 * itself) are here, for the core's dialects and for each platform's own.
 */
import { isSafeLinkTarget } from './links.js';

/** Markup for one dialect. Every function gets already-rendered inner text. */
export interface Syntax {
  /** Escapes literal text so it can never turn into markup. */
  text(value: string): string;
  strong(inner: string): string;
  emphasis(inner: string): string;
  strike(inner: string): string;
  inlineCode(value: string): string;
  link(url: string, inner: string): string;
  heading(depth: number, inner: string): string;
  code(value: string, lang: string | undefined): string;
  /** Wraps an already rendered block (tables are drawn as monospace text). */
  preformatted(value: string): string;
  quote(inner: string): string;
  bullet: string;
  rule: string;
  /** GFM tables are kept as tables (normalized Markdown only). */
  keepsTables: boolean;
  /** Whether a link to `url` may be a link (else its label and target are shown as text). */
  linkAllowed(url: string): boolean;
}

/** Escapes `&`, `<` and `>`: text in HTML, and in markups that read `<…>` as a token. */
export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** {@link escapeHtml} plus `"`, for an HTML attribute value in double quotes. */
export const escapeHtmlAttribute = (s: string): string => escapeHtml(s).replace(/"/g, '&quot;');

/** Backslash-escapes everything CommonMark (and GFM's table pipe) could read as markup. */
export function escapeMarkdown(s: string): string {
  return s
    .replace(/[\\`*_~[\]<>|]/g, '\\$&')
    .replace(/^([ \t]*)([#>+-]|\d+[.)])(?=\s|$)/gm, (_m, sp: string, mk: string) =>
      mk.length > 1 ? `${sp}${mk.slice(0, -1)}\\${mk.slice(-1)}` : `${sp}\\${mk}`,
    );
}

/** A fence longer than any backtick run inside `value`. */
export function fenceFor(value: string): string {
  let longest = 0;
  for (const m of value.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Inline code that survives backticks inside it. */
export function markdownInlineCode(value: string): string {
  let longest = 0;
  for (const m of value.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const ticks = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${value}${pad}${ticks}`;
}

/** `inner` with `prefix` before each line (an empty line gets the prefix without its trailing space): quotes. */
export const prefixLines = (inner: string, prefix: string): string =>
  inner
    .split('\n')
    .map((l) => (l === '' ? prefix.trimEnd() : prefix + l))
    .join('\n');

/** How a Markdown-speaking platform differs from CommonMark with GFM tables. */
export interface MarkdownSyntaxOptions {
  /** Deepest heading it shows (Markdown 6; some chats stop at 3). */
  headingMax?: number;
  /** It shows GFM tables (default true); else tables are drawn as monospace text. */
  keepsTables?: boolean;
  /**
   * Runs over every escaped piece of text, for a platform that reads more
   * than CommonMark in plain words (a chat that pings for `@everyone`).
   */
  defuse?: (escaped: string) => string;
}

/** CommonMark markup, every literal backslash-escaped, for the core's `markdown` and platforms that speak it. */
export function markdownSyntax(options: MarkdownSyntaxOptions = {}): Syntax {
  const headingMax = options.headingMax ?? 6;
  const defuse = options.defuse ?? ((s: string) => s);
  return {
    text: (s) => defuse(escapeMarkdown(s)),
    strong: (s) => `**${s}**`,
    emphasis: (s) => `*${s}*`,
    strike: (s) => `~~${s}~~`,
    inlineCode: markdownInlineCode,
    link: (url, inner) => {
      const target = url.replace(/[<>\s]/g, encodeURIComponent);
      // A bare URL stays a bare URL (an autolink), not "[url](url)".
      if (inner === escapeMarkdown(url)) return `<${target}>`;
      return `[${inner}](<${target}>)`;
    },
    heading: (d, inner) => `${'#'.repeat(Math.min(d, headingMax))} ${inner}`,
    code: (v, lang) => {
      const fence = fenceFor(v);
      return `${fence}${lang ?? ''}\n${v}\n${fence}`;
    },
    preformatted: (v) => {
      const fence = fenceFor(v);
      return `${fence}\n${v}\n${fence}`;
    },
    quote: (inner) => prefixLines(inner, '> '),
    bullet: '- ',
    rule: '---',
    keepsTables: options.keepsTables ?? true,
    linkAllowed: isSafeLinkTarget,
  };
}

/** Text with no markup at all: what a person reads, links written out beside their labels. */
export const plainSyntax: Syntax = {
  text: (s) => s,
  strong: (s) => s,
  emphasis: (s) => s,
  strike: (s) => s,
  inlineCode: (v) => v,
  link: (url, inner) => (inner === url || inner === '' ? url : `${inner} (${url})`),
  heading: (_d, inner) => inner,
  code: (v) => v,
  preformatted: (v) => v,
  quote: (inner) => prefixLines(inner, '│ '),
  bullet: '• ',
  rule: '──────────',
  keepsTables: false,
  linkAllowed: isSafeLinkTarget,
};
