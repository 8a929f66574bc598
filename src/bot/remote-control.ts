/**
 * A stop, button press or edit that reached another replica, applied here:
 * this replica may be the one running the chat's turn. The replica that
 * received it already answered the person; what happens here shows in the
 * chat (the stop notice, the approval prompt's outcome edit).
 */
import type { ControlEnvelope } from '../cluster/types.js';
import type { Logger } from '../logger.js';
import { userKey } from './access.js';
import { type ButtonEvent, chatPlatform } from './adapter-contract.js';
import type { ApprovalRegistry } from './approvals.js';
import { decodeButton } from './buttons.js';
import type { ChatRuntime } from './chat-runtime.js';
import { say } from './text.js';

/** What {@link applyRemoteControl} acts on. */
export interface RemoteControlDeps {
  /** The chat's runtime on this replica, if it has one. */
  runtime: (chat: string) => ChatRuntime | undefined;
  approvals: ApprovalRegistry;
  notify: (chat: string, text: string) => void;
  logger: Logger;
}

/** Applies one control message from another replica; a chat with nothing running here ignores it. */
export async function applyRemoteControl(
  deps: RemoteControlDeps,
  { chat: key, message }: ControlEnvelope,
): Promise<void> {
  const chat = deps.runtime(key);
  deps.logger.debug({ chat: key, type: message.type }, 'control message from another replica');
  switch (message.type) {
    case 'stop': {
      const stopped = chat?.stop();
      if (stopped && (stopped.running || stopped.dropped))
        deps.notify(key, say.stopped(stopped.dropped, stopped.running));
      return;
    }
    case 'edit':
      chat?.edit(message.messageId, message.text);
      return;
    case 'button': {
      const payload = decodeButton(message.payload);
      if (!payload) return;
      if (payload.action === 'stop') {
        if (chat && chat.runningTurnId === payload.id) chat.stop();
        return;
      }
      if (!deps.approvals.has(payload.id)) return;
      const user = { id: message.user.id, name: message.user.name ?? message.user.id };
      // The same checks as a local press (requester or admin); the answer went out where it arrived.
      const event: ButtonEvent = {
        type: 'button',
        chat: key,
        user,
        payload: message.payload,
        ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
        respond: async () => {},
      };
      await deps.approvals.press(event, payload, userKey(chatPlatform(key), user.id));
      return;
    }
  }
}
