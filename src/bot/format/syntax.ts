/**
 * How each dialect spells inline and block markup. The renderer walks the
 * mdast tree once and asks the dialect's {@link Syntax} for every node, so a
 * dialect is data plus a few small functions, not a second renderer.
 */
import type { Dialect, MentionPolicy } from '../adapter-contract.js';
import { isSafeLinkTarget } from './links.js';
import { isUserLink, keepChannelLinks, mentionEscaper } from './mentions.js';

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

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

/** Backslash-escapes everything CommonMark / Discord could read as markup. */
function escapeMarkdown(s: string, extra: RegExp): string {
  return s
    .replace(/[\\`*_~[\]<>]/g, '\\$&')
    .replace(extra, '\\$&')
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

const prefixLines = (inner: string, prefix: string) =>
  inner
    .split('\n')
    .map((l) => (l === '' ? prefix.trimEnd() : prefix + l))
    .join('\n');

const telegramHtml: Syntax = {
  text: escapeHtml,
  strong: (s) => `<b>${s}</b>`,
  emphasis: (s) => `<i>${s}</i>`,
  strike: (s) => `<s>${s}</s>`,
  inlineCode: (v) => `<code>${escapeHtml(v)}</code>`,
  link: (url, inner) => `<a href="${escapeAttr(url)}">${inner}</a>`,
  heading: (_d, inner) => `<b>${inner}</b>`,
  code: (v, lang) =>
    lang
      ? `<pre><code class="language-${escapeAttr(lang)}">${escapeHtml(v)}</code></pre>`
      : `<pre>${escapeHtml(v)}</pre>`,
  preformatted: (v) => `<pre>${escapeHtml(v)}</pre>`,
  quote: (inner) => `<blockquote>${inner}</blockquote>`,
  bullet: '• ',
  rule: '──────────',
  keepsTables: false,
  linkAllowed: isSafeLinkTarget,
};

const escapeSlack = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const slackMrkdwn: Syntax = {
  text: escapeSlack,
  strong: (s) => `*${s}*`,
  emphasis: (s) => `_${s}_`,
  strike: (s) => `~${s}~`,
  inlineCode: (v) => `\`${escapeSlack(v.replace(/`/g, "'"))}\``,
  link: (url, inner) => {
    const target = escapeSlack(url).replace(/\|/g, '%7C');
    return inner === escapeSlack(url) ? `<${target}>` : `<${target}|${inner.replace(/\|/g, '/')}>`;
  },
  heading: (_d, inner) => `*${inner}*`,
  code: (v) => `\`\`\`\n${escapeSlack(v.replace(/```/g, "'''"))}\n\`\`\``,
  preformatted: (v) => `\`\`\`\n${escapeSlack(v)}\n\`\`\``,
  quote: (inner) => prefixLines(inner, '> '),
  bullet: '• ',
  rule: '──────────',
  keepsTables: false,
  linkAllowed: isSafeLinkTarget,
};

/**
 * Discord pings everyone for `@everyone` and `@here` in plain text (mentions
 * in `<@…>` form are already escaped with their `<`). A zero-width space
 * after the `@` keeps the words and loses the ping; the adapter's
 * `allowed_mentions: { parse: [] }` is the second lock.
 */
const defuseMassMentions = (s: string) => s.replace(/@(everyone|here)\b/gi, '@\u200b$1');

function markdownLike(
  headingMax: number,
  extraEscapes: RegExp,
  keepsTables: boolean,
  defuse: (s: string) => string = (s) => s,
): Syntax {
  return {
    text: (s) => defuse(escapeMarkdown(s, extraEscapes)),
    strong: (s) => `**${s}**`,
    emphasis: (s) => `*${s}*`,
    strike: (s) => `~~${s}~~`,
    inlineCode: markdownInlineCode,
    link: (url, inner) => {
      const target = url.replace(/[<>\s]/g, encodeURIComponent);
      // A bare URL stays a bare URL (an autolink), not "[url](url)".
      if (inner === escapeMarkdown(url, extraEscapes)) return `<${target}>`;
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
    keepsTables,
    linkAllowed: isSafeLinkTarget,
  };
}

const plain: Syntax = {
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

const syntaxes: Record<Dialect, Syntax> = {
  'telegram-html': telegramHtml,
  'slack-mrkdwn': { ...slackMrkdwn, text: keepChannelLinks(slackMrkdwn.text) },
  'discord-markdown': markdownLike(3, /\|/g, false, defuseMassMentions),
  markdown: markdownLike(6, /\|/g, true),
  plain,
};

/** Each dialect's table with the mentions a policy allows kept as written in text. */
const withMentions: Record<Exclude<MentionPolicy, 'none'>, Record<Dialect, Syntax>> = {
  users: mentionVariants('users'),
  all: mentionVariants('all'),
};

function mentionVariants(policy: MentionPolicy): Record<Dialect, Syntax> {
  const out = {} as Record<Dialect, Syntax>;
  for (const [dialect, syntax] of Object.entries(syntaxes) as [Dialect, Syntax][]) {
    // Plain text is never escaped, so there is nothing to keep; a user link may still be shown as one.
    const linkAllowed = (url: string) => isSafeLinkTarget(url) || isUserLink(url, policy);
    const text = dialect === 'plain' ? syntax.text : mentionEscaper(syntax.text, policy);
    out[dialect] = { ...syntax, text, linkAllowed };
  }
  return out;
}

/** The markup table for `dialect`; `mentions` says which mentions in the text stay mentions. */
export function syntaxFor(dialect: Dialect, mentions: MentionPolicy = 'none'): Syntax {
  return mentions === 'none' ? syntaxes[dialect] : withMentions[mentions][dialect];
}
