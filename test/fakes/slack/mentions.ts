/**
 * Who a message notifies, as Slack decides it. In mrkdwn text (the `text`
 * field, mrkdwn sections) a mention is a token in angle brackets: `<@U…>`,
 * `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^S…>`, each with an
 * optional `|label`; `&lt;` is text, and nothing else pings (no
 * `link_names`). See docs.slack.dev/messaging/formatting-message-text
 * ("Mentioning users", "Mentioning groups", "Special mentions", "Escaping
 * text"). Markdown (markdown blocks, chat streams' `markdown_text`) is
 * translated to mrkdwn, so the same tokens ping there, a backslash escapes
 * the character after it (docs.slack.dev/reference/block-kit/blocks/markdown-block,
 * "Escaping special characters"), and a link whose target is a token
 * (`[x](!channel)`) becomes that token. Plain-text sections ping nobody.
 */
import type { AnyBlock } from './blocks.js';
import type { FakeMessage } from './state.js';

const TOKEN = /<(@[UW][A-Z0-9]+|!(?:here|channel|everyone)|!subteam\^[A-Z0-9]+)(?:\|[^<>]*)?>/g;
const LINK_TO_TOKEN = /\]\(\s*<?(@[UW][A-Z0-9]+|!(?:here|channel|everyone)|!subteam\^[A-Z0-9]+)/g;

function mrkdwnPings(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((m) => m[1]!);
}

function markdownPings(text: string): string[] {
  // An escaped character is text: drop it (and its backslash) before looking for tokens.
  const unescaped = text.replace(/\\[\s\S]/g, ' ');
  return [...mrkdwnPings(unescaped), ...[...unescaped.matchAll(LINK_TO_TOKEN)].map((m) => m[1]!)];
}

function blockPings(block: AnyBlock): string[] {
  if (block.type === 'markdown') return markdownPings(String(block.text ?? ''));
  if (block.type === 'section' && block.text?.type === 'mrkdwn') return mrkdwnPings(String(block.text.text));
  return [];
}

/**
 * The mentions `message` makes, in order: `@U123` for a user, `!here`,
 * `!channel`, `!everyone`, `!subteam^S1` for the rest. A chat stream's text
 * is Markdown; a message with blocks pings through its blocks.
 */
export function slackPings(message: FakeMessage): string[] {
  if (message.streamState !== undefined && !message.blocks?.length) return markdownPings(message.text);
  if (message.blocks?.length) return message.blocks.flatMap(blockPings);
  return mrkdwnPings(message.text);
}
