/**
 * Mentions in the model's text, by {@link MentionPolicy}. The dialects escape
 * all text, so a mention the model writes reaches the chat as text unless the
 * policy lets it through: {@link mentionEscaper} keeps the allowed tokens as
 * written and escapes the rest. Native Markdown streams (Slack chat streams,
 * Telegram rich drafts) carry the model's own text instead, so
 * {@link neutralizeRawMarkdown} breaks the tokens there with a zero-width
 * space that leaves the words as they read.
 */
import type { MentionPolicy } from '../adapter-contract.js';

const ZWSP = '\u200b';

/**
 * A Slack channel link (`<#C…>`, with an optional `|label`): it notifies
 * nobody, so every policy keeps it as written and Slack shows it as the
 * channel's name, where escaped it would show as raw markup.
 */
const CHANNEL_LINK = String.raw`<#C[A-Z0-9]+(?:\|[^<>|\n]*)?>`;

/**
 * Tokens that notify one person: Slack user mentions (`<@U…>`, `<@W…>`,
 * with an optional `|label`), Discord user mentions (`<@123>`, `<@!123>`).
 */
const USER_TOKENS = String.raw`<@[UW][A-Z0-9]+(?:\|[^<>|\n]*)?>|${CHANNEL_LINK}|<@!?\d+>`;

/**
 * Tokens that notify many: Slack `<!here>`, `<!channel>`, `<!everyone>`,
 * user groups `<!subteam^S…>`; Discord role mentions and `@everyone`/`@here`.
 */
const MASS_TOKENS = String.raw`<!(?:here|channel|everyone)(?:\|[^<>|\n]*)?>|<!subteam\^[A-Z0-9]+(?:\|[^<>|\n]*)?>|<@&\d+>|@everyone\b|@here\b`;

const ALLOWED: Record<MentionPolicy, RegExp | undefined> = {
  none: undefined,
  users: new RegExp(USER_TOKENS, 'g'),
  all: new RegExp(`${USER_TOKENS}|${MASS_TOKENS}`, 'g'),
};

/** `escapeText` for everything but the matches of `pattern`, which stay as written. */
function keeping(escapeText: (s: string) => string, pattern: RegExp): (s: string) => string {
  return (s) => {
    let out = '';
    let last = 0;
    for (const m of s.matchAll(pattern)) {
      out += escapeText(s.slice(last, m.index)) + m[0];
      last = m.index + m[0].length;
    }
    return last === 0 ? escapeText(s) : out + escapeText(s.slice(last));
  };
}

/**
 * A text escaper that leaves the mentions `policy` allows as written and
 * passes everything else through `escapeText`. With `none` it is `escapeText`.
 */
export function mentionEscaper(
  escapeText: (s: string) => string,
  policy: MentionPolicy,
): (s: string) => string {
  const allowed = ALLOWED[policy];
  return allowed ? keeping(escapeText, allowed) : escapeText;
}

/**
 * Slack's escaper keeping channel links (`<#C…>`) as written, whatever the
 * policy: a link a person wrote and the model repeats then shows as the
 * channel's name, not as raw markup.
 */
export function keepChannelLinks(escapeText: (s: string) => string): (s: string) => string {
  return keeping(escapeText, new RegExp(CHANNEL_LINK, 'g'));
}

/** True for a Telegram link that mentions a user (`tg://user?id=42`), which `users` and `all` allow. */
export function isUserLink(url: string, policy: MentionPolicy): boolean {
  return policy !== 'none' && /^tg:\/\/user\?id=\d+$/i.test(url.trim());
}

/** What each policy breaks in raw Markdown, and where the zero-width space goes (after the match). */
const RAW_BREAKS: Record<MentionPolicy, RegExp | undefined> = {
  // `<` of any Slack or Discord token; `@` of the mass words; a link target that is a token; `tg` of a tg:// link.
  // A channel link (`<#C…>`) notifies nobody and stays a link.
  none: /<(?=!(?:here|channel|everyone|subteam\^)|@[A-Z0-9!&]|#(?!C)[A-Z0-9])|(?<![\w@.])@(?=(?:everyone|here|channel)\b)|\]\(\s*<?(?=[!@#])|\btg(?=:\/\/)/gi,
  users:
    /<(?=!(?:here|channel|everyone|subteam\^)|@&)|(?<![\w@.])@(?=(?:everyone|here|channel)\b)|\]\(\s*<?(?=!)/gi,
  all: undefined,
};

/**
 * Ends of `text` where a zero-width space may still have to go in once the
 * next characters come (`<!chan`, `@ever`, `tg:/`), with how many of their
 * characters come before that place. A live update stops there, so what a
 * stream has shown is never changed.
 */
const UNDECIDED: readonly [RegExp, number][] = [
  [/<[!@#]?[\w^&!]*$/, 1],
  [/(?<![\w@.])@\w*$/, 1],
  [/\btg:?\/?$/i, 2],
];
const LONGEST_UNDECIDED = 16;

/** Where a live text stops: before the first undecided place at its end, else its end. */
function decidedEnd(text: string): number {
  let end = text.length;
  for (const [pattern, keep] of UNDECIDED) {
    const m = pattern.exec(text);
    if (m && m[0].length <= LONGEST_UNDECIDED) end = Math.min(end, m.index + keep);
  }
  return end;
}

/**
 * The model's Markdown with the mentions `policy` does not allow broken by
 * a zero-width space (`<\u200b!channel>`, `@\u200beveryone`, `tg\u200b://…`),
 * for platforms that render Markdown themselves. A live (not `final`) text
 * stops before a place still undecided, so each live result is a prefix of
 * the next and of the final one: an append-only stream never takes text back.
 */
export function neutralizeRawMarkdown(text: string, policy: MentionPolicy, final: boolean): string {
  const breaks = RAW_BREAKS[policy];
  if (!breaks) return text;
  const body = final ? text : text.slice(0, decidedEnd(text));
  return body.replace(breaks, (m) => m + ZWSP);
}
