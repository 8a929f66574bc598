/**
 * Mentions in the model's text, by {@link MentionPolicy}. Each dialect names
 * its platform's mention tokens ({@link MentionRules}); the dialects escape
 * all text, so a mention the model writes reaches the chat as text unless
 * the policy lets it through: {@link mentionSyntax} keeps the allowed tokens
 * as written and escapes the rest. Native Markdown streams carry the model's
 * own text instead, so {@link rawMarkdownText} breaks the tokens there with
 * a zero-width space that leaves the words as they read
 * ({@link RawMarkdownRules} says where).
 */
import type { MentionPolicy } from '../../vocabulary.js';
import type { Syntax } from './syntax.js';

const ZWSP = '\u200b';

/**
 * A platform's mention tokens as they appear in text. Each is a pattern
 * (its flags are ignored; matched case-sensitively, anywhere in a text);
 * a token the policy allows stays as written, every other one is escaped
 * into text by the dialect.
 */
export interface MentionRules {
  /** Tokens that notify one person (`<@U123>`): kept under `users` and `all`. */
  readonly user?: RegExp;
  /** Tokens that notify many (`<!here>`, `@everyone`, a role): kept under `all`. */
  readonly mass?: RegExp;
  /**
   * Tokens that notify nobody but read as raw markup once escaped (a link to
   * a channel): kept under every policy, so the platform shows them as it
   * shows them to people.
   */
  readonly inert?: RegExp;
  /** A link target that mentions a user (`tg://user?id=42`): a link under `users` and `all` (its flags apply, but `g` and `y`). */
  readonly userLink?: RegExp;
}

/**
 * Where mentions hide in raw Markdown, for a platform that renders the
 * model's Markdown itself (a native stream carries it as written).
 */
export interface RawMarkdownRules {
  /**
   * Per policy, what to break: a zero-width space goes in right after each
   * match (every match, with or without the global flag). A policy without
   * a pattern breaks nothing.
   */
  readonly breaks: Partial<Record<MentionPolicy, RegExp>>;
  /**
   * Ends of a text where a break may still have to go once more characters
   * come (`<!chan`, `@ever`), each with how many of the match's characters
   * come before that place. A live text stops there, so what a stream has
   * shown is never changed. Patterns end in `$`; a match is at most 16
   * characters long to count.
   */
  readonly undecided: readonly (readonly [RegExp, number])[];
}

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

/** The tokens `policy` keeps as written, as one global pattern; undefined when none. */
function keptTokens(rules: MentionRules, policy: MentionPolicy): RegExp | undefined {
  const parts: RegExp[] = [];
  if (policy !== 'none' && rules.user) parts.push(rules.user);
  if (rules.inert) parts.push(rules.inert);
  if (policy === 'all' && rules.mass) parts.push(rules.mass);
  if (parts.length === 0) return undefined;
  return new RegExp(parts.map((p) => p.source).join('|'), 'g');
}

/**
 * `syntax` with the mentions `policy` allows kept as written in text and
 * their links allowed; `syntax` itself when the rules keep nothing.
 */
export function mentionSyntax(
  syntax: Syntax,
  rules: MentionRules | undefined,
  policy: MentionPolicy,
): Syntax {
  if (!rules) return syntax;
  const kept = keptTokens(rules, policy);
  // Without `g` or `y`: `test` on a global pattern would start where the last match ended.
  const userLink =
    policy === 'none' || !rules.userLink
      ? undefined
      : new RegExp(rules.userLink.source, rules.userLink.flags.replace(/[gy]/g, ''));
  if (!kept && !userLink) return syntax;
  const text = kept ? keeping(syntax.text, kept) : syntax.text;
  const linkAllowed = userLink
    ? (url: string) => syntax.linkAllowed(url) || userLink.test(url.trim())
    : syntax.linkAllowed;
  return { ...syntax, text, linkAllowed };
}

const LONGEST_UNDECIDED = 16;

/** Where a live text stops: before the first undecided place at its end, else its end. */
function decidedEnd(text: string, rules: RawMarkdownRules): number {
  let end = text.length;
  for (const [pattern, keep] of rules.undecided) {
    const m = pattern.exec(text);
    if (m && m[0].length <= LONGEST_UNDECIDED) end = Math.min(end, m.index + keep);
  }
  return end;
}

/**
 * The model's Markdown with the mentions `policy` does not allow broken by
 * a zero-width space (`<\u200b!channel>`, `@\u200beveryone`), for platforms
 * that render Markdown themselves. A live (not `final`) text stops before a
 * place still undecided, so each live result is a prefix of the next and of
 * the final one: an append-only stream never takes text back.
 */
export function rawMarkdownText(
  text: string,
  rules: RawMarkdownRules,
  policy: MentionPolicy,
  final: boolean,
): string {
  const breaks = rules.breaks[policy];
  if (!breaks) return text;
  const body = final ? text : text.slice(0, decidedEnd(text, rules));
  return body.replace(everywhere(breaks), (m) => m + ZWSP);
}

const globals = new WeakMap<RegExp, RegExp>();

/** `pattern` with the global flag: a pattern without it would break only its first match and let the rest ping. */
function everywhere(pattern: RegExp): RegExp {
  if (pattern.global) return pattern;
  let global = globals.get(pattern);
  if (!global) {
    global = new RegExp(pattern.source, `${pattern.flags.replace('y', '')}g`);
    globals.set(pattern, global);
  }
  return global;
}
