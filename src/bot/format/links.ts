/**
 * Which link targets from the model become links. A link is the model's
 * easiest way to ping or spoof: in Slack `[x](!channel)` renders as
 * `<!channel|x>`, a channel-wide notification, and `[x](@U123)` a mention;
 * in Telegram `tg://user?id=…` links mention a user. Only web and mail
 * targets become links; any other target is shown as text beside the label,
 * so nothing the model wrote is lost and nothing it wrote pings anyone.
 */

const SAFE_SCHEME = /^(https?:\/\/|mailto:)/i;

/** True when `url` may be rendered as a link in every dialect. */
export function isSafeLinkTarget(url: string): boolean {
  return SAFE_SCHEME.test(url.trim());
}

/**
 * Escapes every ASCII punctuation character with a backslash (CommonMark
 * allows that for all of them), so text quoted from a person (a display
 * name, a session name) reads as itself inside a Markdown message and can
 * never become a link, a mention or emphasis.
 *
 * @example
 * `✅ Allowed by ${markdownLiteral(name)}`
 */
export function markdownLiteral(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
