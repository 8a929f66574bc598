/**
 * The core's buttons as Telegram inline keyboards. A button's payload goes
 * into `callback_data`, which Telegram caps at 64 bytes: a longer payload is
 * refused here with a clear error instead of a vague BUTTON_DATA_INVALID.
 */
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { Button } from '../../src/bot/adapter-contract.js';
import { SwitchboardError } from '../../src/errors.js';
import { CALLBACK_DATA_LIMIT } from './capabilities.js';

/** Builds an inline keyboard; `[]` gives an empty keyboard (removes buttons on edit). */
export function toInlineKeyboard(rows: Button[][]): InlineKeyboardMarkup {
  return {
    inline_keyboard: rows.map((row) =>
      row.map((button) => {
        const bytes = Buffer.byteLength(button.payload, 'utf8');
        if (bytes === 0 || bytes > CALLBACK_DATA_LIMIT) {
          throw new SwitchboardError(
            'PLATFORM_ERROR',
            `Button "${button.label}" carries a ${bytes}-byte payload; Telegram's callback_data takes 1-${CALLBACK_DATA_LIMIT} bytes`,
            { detail: { payloadBytes: bytes } },
          );
        }
        return { text: button.label, callback_data: button.payload };
      }),
    ),
  };
}

/**
 * Remembers the keyboard on recent messages, because Telegram drops a
 * message's keyboard on any edit that does not repeat it, while the core
 * expects buttons to stay unless it passes an empty list. Bounded: old
 * entries fall out first.
 */
export class KeyboardMemory {
  readonly #byMessage = new Map<string, InlineKeyboardMarkup>();

  constructor(readonly capacity = 2000) {}

  set(chat: string, messageId: string, keyboard: InlineKeyboardMarkup | undefined): void {
    const key = `${chat}/${messageId}`;
    this.#byMessage.delete(key);
    if (!keyboard || keyboard.inline_keyboard.length === 0) return;
    this.#byMessage.set(key, keyboard);
    if (this.#byMessage.size > this.capacity) {
      const oldest = this.#byMessage.keys().next().value;
      if (oldest !== undefined) this.#byMessage.delete(oldest);
    }
  }

  get(chat: string, messageId: string): InlineKeyboardMarkup | undefined {
    return this.#byMessage.get(`${chat}/${messageId}`);
  }
}
