/**
 * What a message written while a reply runs does, by the chat's busy mode
 * (`SWITCHBOARD_BUSY`, `/busy`): `steer` joins the running turn at its next
 * model request, `queue` waits for its own turn, `interrupt` stops the
 * running reply and runs next.
 */
import type { BusyMode } from '../schedule/types.js';
import type { ChatRuntime } from './chat-runtime.js';
import type { QueuedMessage } from './queued-message.js';

/** Hands `item` to the chat by `mode`; false when the queue is full. `joined` acknowledges a steered message. */
export function acceptWhileBusy(
  chat: ChatRuntime,
  item: QueuedMessage,
  mode: BusyMode,
  joined: () => void,
): boolean {
  switch (mode) {
    case 'steer':
      return chat.steer(item, joined);
    case 'interrupt':
      return chat.interrupt(item);
    case 'queue':
      return chat.enqueue(item);
  }
}
