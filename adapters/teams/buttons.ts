/**
 * The core's buttons as Adaptive Card `Action.Execute` actions (Universal
 * Actions, https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/universal-actions-for-adaptive-cards/overview).
 * A press reaches the bot as an `adaptiveCard/action` invoke carrying the
 * presser, which the bot answers in the same HTTP response; `Action.Submit`
 * would arrive as a message with no answer owed and no way to tell the
 * presser privately that they may not press it.
 *
 * A message with buttons is the Markdown text plus a card holding only the
 * buttons (one `ActionSet` per row), so its text renders exactly as a
 * message without buttons would; the card's own TextBlock Markdown is a
 * smaller subset.
 */
import type { Button, Dialect, OutboundMessage } from '../../src/bot/adapter-contract.js';
import { plain } from '../../src/bot/format/dialect.js';
import { SwitchboardError } from '../../src/errors.js';
import { TEAMS_BUTTON_PAYLOAD_LIMIT } from './capabilities.js';

/** The `verb` every button of ours carries; a press with another verb is not ours. */
export const BUTTON_VERB = 'switchboard';

/** Card content type of an Adaptive Card attachment. */
export const ADAPTIVE_CARD = 'application/vnd.microsoft.card.adaptive';

/** Teams shows about 20 characters of a button title on a phone; longer labels are cut with an ellipsis at 40. */
const LABEL_LIMIT = 40;

/** A message attachment (the fields Teams reads). */
export interface CardAttachment {
  contentType: string;
  content: Record<string, unknown>;
}

/** The content fields of a message activity (create or update). */
export interface MessageContent {
  type: 'message';
  text: string;
  textFormat: 'markdown' | 'plain';
  attachments: CardAttachment[];
}

function clip(text: string): string {
  const chars = [...text];
  return chars.length <= LABEL_LIMIT ? text : `${chars.slice(0, LABEL_LIMIT - 1).join('')}…`;
}

function action(button: Button): Record<string, unknown> {
  // The declared buttonPayloadLimit is kept here, so a card never grows past what the core planned for.
  if (Buffer.byteLength(button.payload) > TEAMS_BUTTON_PAYLOAD_LIMIT)
    throw new SwitchboardError(
      'PLATFORM_ERROR',
      `Button payload "${button.payload.slice(0, 20)}..." is over the ${TEAMS_BUTTON_PAYLOAD_LIMIT} bytes the Teams adapter puts in a card; keep payloads short and look the rest up when pressed.`,
    );
  return {
    type: 'Action.Execute',
    title: clip(button.label),
    verb: BUTTON_VERB,
    data: { payload: button.payload },
    ...(button.style === 'primary' ? { style: 'positive' } : {}),
    ...(button.style === 'danger' ? { style: 'destructive' } : {}),
  };
}

/** One card with a row of actions per row of buttons, or undefined when there are none. */
export function buttonCard(rows: readonly Button[][]): CardAttachment | undefined {
  const filled = rows.filter((row) => row.length > 0);
  if (filled.length === 0) return undefined;
  return {
    contentType: ADAPTIVE_CARD,
    content: {
      type: 'AdaptiveCard',
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      // Action.Execute needs schema 1.4.
      version: '1.4',
      body: filled.map((row) => ({ type: 'ActionSet', actions: row.map(action) })),
    },
  };
}

/** Teams' textFormat for a dialect: Markdown, or plain text the core resends when Markdown was refused. */
export function textFormat(format: Dialect): 'markdown' | 'plain' {
  return format === plain ? 'plain' : 'markdown';
}

/**
 * The activity fields for a message. `attachments` is always present so an
 * edit with `buttons: []` takes the old buttons away (an edit that names
 * none is given the message's remembered buttons, `outbound.ts`).
 */
export function messageContent(message: OutboundMessage): MessageContent {
  const card = buttonCard(message.buttons ?? []);
  return {
    type: 'message',
    text: message.text,
    textFormat: textFormat(message.format),
    attachments: card ? [card] : [],
  };
}

/** The core's payload from an `adaptiveCard/action` invoke value, if the press is on one of our buttons. */
export function pressedPayload(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const act = (value as { action?: { type?: unknown; verb?: unknown; data?: unknown } }).action;
  if (act?.type !== 'Action.Execute' || act.verb !== BUTTON_VERB) return undefined;
  const payload = (act.data as { payload?: unknown } | undefined)?.payload;
  return typeof payload === 'string' && payload.length > 0 ? payload : undefined;
}
