/**
 * Messages as Block Kit. The core's buttons become `actions` blocks whose
 * buttons carry the core's payload as `value` (Slack allows 2,000
 * characters) and an `action_id` unique within the message (`sb:<row>:<col>`),
 * which is also how inbound presses are recognised as ours.
 */
import type { Button, Dialect, OutboundMessage } from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import { slackMarkdown, slackMrkdwn } from './markdown.js';

/** Every action_id this adapter puts on a button matches this. */
export const ACTION_ID_PATTERN = /^sb:\d+:\d+$/;

/** Slack's limits on a section's text and a button's label. */
const SECTION_LIMIT = 3000;
const LABEL_LIMIT = 75;

// Loose block shape: the fields Slack reads, nothing more.
export type SlackBlock = Record<string, unknown>;

/** The fields of chat.postMessage / chat.update that carry a message's content. */
export interface SlackContent {
  text: string;
  blocks?: SlackBlock[];
}

/** One `actions` block per row of buttons. */
export function buttonBlocks(rows: readonly Button[][]): SlackBlock[] {
  return rows
    .filter((row) => row.length > 0)
    .map((row, r) => ({
      type: 'actions',
      elements: row.map((button, c) => ({
        type: 'button',
        text: { type: 'plain_text', text: clip(button.label, LABEL_LIMIT), emoji: true },
        action_id: `sb:${r}:${c}`,
        value: button.payload,
        ...(button.style ? { style: button.style } : {}),
      })),
    }));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Splits text at line boundaries into pieces a section can hold. */
export function splitForSections(text: string, limit = SECTION_LIMIT): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = rest.lastIndexOf('\n', limit);
    if (cut <= 0) cut = rest.lastIndexOf(' ', limit);
    if (cut <= 0) cut = limit;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  if (rest.length > 0) parts.push(rest);
  return parts;
}

function textBlocks(text: string, format: Dialect): SlackBlock[] {
  if (!text) return [];
  if (format === slackMarkdown) return [{ type: 'markdown', text }];
  const type = format === plain ? 'plain_text' : 'mrkdwn';
  return splitForSections(text).map((part) => ({
    type: 'section',
    text: { type, text: part, ...(type === 'plain_text' ? { emoji: false } : {}) },
  }));
}

/**
 * The content fields for a message. Markdown always goes in a `markdown`
 * block and plain text in `plain_text` sections, so Slack renders them as
 * such; mrkdwn without buttons is the message `text` (up to Slack's 40,000
 * characters, not the 3,000 of a section). `clearBlocks` sends an empty
 * block list so an edit removes buttons Slack would otherwise keep.
 */
export function messageContent(message: OutboundMessage, clearBlocks = false): SlackContent {
  const rows = message.buttons ?? [];
  const hasButtons = rows.some((row) => row.length > 0);
  if (message.format === slackMrkdwn && !hasButtons)
    return { text: message.text, ...(clearBlocks ? { blocks: [] } : {}) };
  return {
    text: message.text,
    blocks: [...textBlocks(message.text, message.format), ...buttonBlocks(rows)],
  };
}
