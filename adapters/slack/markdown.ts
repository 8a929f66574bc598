/**
 * How Slack writes formatted text. Messages edited with chat.update speak
 * mrkdwn (docs.slack.dev/messaging/formatting-message-text); chat streams
 * and `markdown` blocks take standard Markdown, which Slack translates to
 * mrkdwn, so the same tokens ping there. A mention is a token in angle
 * brackets: `<@U…>` a person, `<!here>`, `<!channel>`, `<!everyone>` and
 * `<!subteam^S…>` many; `<#C…>` links a channel and notifies nobody.
 */
import {
  type Dialect,
  escapeHtml,
  isSafeLinkTarget,
  type MentionRules,
  markdown,
  prefixLines,
  type Syntax,
} from '../../src/bot/format/dialect.js';

/**
 * Slack's tokens, each with an optional `|label`. A channel link is kept
 * under every policy: it shows as the channel's name, where escaped it
 * would show as raw markup.
 */
const mentions: MentionRules = {
  user: /<@[UW][A-Z0-9]+(?:\|[^<>|\n]*)?>/,
  inert: /<#C[A-Z0-9]+(?:\|[^<>|\n]*)?>/,
  mass: /<!(?:here|channel|everyone)(?:\|[^<>|\n]*)?>|<!subteam\^[A-Z0-9]+(?:\|[^<>|\n]*)?>/,
};

/** In mrkdwn only `&`, `<` and `>` are escaped; `<…>` is a token. */
const escapeMrkdwn = escapeHtml;

const mrkdwnSyntax: Syntax = {
  text: escapeMrkdwn,
  strong: (s) => `*${s}*`,
  emphasis: (s) => `_${s}_`,
  strike: (s) => `~${s}~`,
  inlineCode: (v) => `\`${escapeMrkdwn(v.replace(/`/g, "'"))}\``,
  link: (url, inner) => {
    const target = escapeMrkdwn(url).replace(/\|/g, '%7C');
    return inner === escapeMrkdwn(url) ? `<${target}>` : `<${target}|${inner.replace(/\|/g, '/')}>`;
  },
  heading: (_d, inner) => `*${inner}*`,
  code: (v) => `\`\`\`\n${escapeMrkdwn(v.replace(/```/g, "'''"))}\n\`\`\``,
  preformatted: (v) => `\`\`\`\n${escapeMrkdwn(v)}\n\`\`\``,
  quote: (inner) => prefixLines(inner, '> '),
  bullet: '• ',
  rule: '──────────',
  keepsTables: false,
  linkAllowed: isSafeLinkTarget,
};

/** mrkdwn, for messages edited with chat.update. */
export const slackMrkdwn: Dialect = { name: 'slack-mrkdwn', syntax: mrkdwnSyntax, mentions };

/**
 * Standard Markdown, for chat streams and `markdown` blocks. A stream
 * carries the model's text as written, with what the policy does not allow
 * broken: the `<` of a token, the `@` of the words `@channel`, `@here` and
 * `@everyone`, and a link whose target is a token (`[x](!channel)` would
 * become `<!channel|x>`).
 */
export const slackMarkdown: Dialect = {
  name: 'slack-markdown',
  syntax: markdown.syntax,
  mentions,
  rawMarkdown: {
    breaks: {
      none: /<(?=!(?:here|channel|everyone|subteam\^)|@[A-Z0-9]|#(?!C)[A-Z0-9])|(?<![\w@.])@(?=(?:everyone|here|channel)\b)|\]\(\s*<?(?=[!@#])/gi,
      users:
        /<(?=!(?:here|channel|everyone|subteam\^))|(?<![\w@.])@(?=(?:everyone|here|channel)\b)|\]\(\s*<?(?=!)/gi,
    },
    undecided: [
      [/<[!@#]?[\w^&!]*$/, 1],
      [/(?<![\w@.])@\w*$/, 1],
    ],
  },
};
