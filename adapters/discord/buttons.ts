/**
 * The core's buttons as Discord message components: one action row per row
 * of buttons, the core's payload as the button's custom_id (at most 100
 * characters, which the core already respects through the declared limit).
 */
import type { Button } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { BUTTON_PAYLOAD_LIMIT } from './capabilities.js';

/** A button component in the v10 JSON shape. */
export interface ButtonComponent {
  type: 2;
  style: 1 | 2 | 4;
  label: string;
  custom_id: string;
}

/** An action row of buttons. */
export interface ActionRow {
  type: 1;
  components: ButtonComponent[];
}

const MAX_ROWS = 5;
const MAX_PER_ROW = 5;
const MAX_LABEL = 80;

const STYLE = { primary: 1, danger: 4 } as const;

/**
 * Builds action rows. Rows longer than Discord's five buttons wrap onto the
 * next row; more than five rows, or a payload over 100 characters, is a
 * programming error in the caller and throws instead of sending something
 * the user cannot press.
 */
export function toActionRows(rows: Button[][]): ActionRow[] {
  const out: ActionRow[] = [];
  for (const row of rows) {
    for (let i = 0; i < row.length; i += MAX_PER_ROW) {
      out.push({ type: 1, components: row.slice(i, i + MAX_PER_ROW).map(toComponent) });
    }
  }
  if (out.length > MAX_ROWS) {
    throw new SwitchboardError(
      'PLATFORM_ERROR',
      `Discord allows at most ${MAX_ROWS} rows of buttons per message.`,
    );
  }
  return out;
}

function toComponent(button: Button): ButtonComponent {
  if (button.payload.length === 0 || button.payload.length > BUTTON_PAYLOAD_LIMIT) {
    throw new SwitchboardError(
      'PLATFORM_ERROR',
      `Button payload "${button.payload.slice(0, 20)}..." must be 1-${BUTTON_PAYLOAD_LIMIT} characters for Discord.`,
    );
  }
  const label =
    [...button.label].length > MAX_LABEL
      ? `${[...button.label].slice(0, MAX_LABEL - 1).join('')}…`
      : button.label;
  return {
    type: 2,
    style: button.style ? STYLE[button.style] : 2,
    label,
    custom_id: button.payload,
  };
}
