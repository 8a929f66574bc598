/**
 * Answering a button press. Teams waits for the `adaptiveCard/action`
 * invoke's HTTP response and gives up after about five seconds (the
 * invoke deadline "Respond to the dialog submit action" states, retried
 * twice), so the adapter waits for the core's answer at most
 * `ackMs` (4 s by default) and then answers the invoke itself.
 *
 * An answer in time is the invoke's response, a message only the presser
 * sees (`application/vnd.microsoft.activity.message`). An answer after the
 * deadline is posted in the chat only when it is not private (the core's
 * refusals and toasts are private; the approval message itself is edited
 * by the core either way), so nothing meant for one person lands in a
 * channel.
 */
import type { Responder } from '../../src/bot/adapter-contract.js';
import type { Clock } from '../../src/clock.js';

/** The invoke response for a card action: a message to the presser, or a bare acknowledgement. */
export function cardActionResponse(text: string | undefined): {
  status: number;
  body: Record<string, unknown>;
} {
  return {
    status: 200,
    body:
      text === undefined || text === ''
        ? { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: 'OK' }
        : { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: text },
  };
}

/** A press's responder, and the answer the invoke should carry. */
export interface PendingPress {
  respond: Responder;
  /** The core's answer if it comes within `ackMs`, else undefined; from then on answers go to `late`. */
  answer(): Promise<string | undefined>;
}

/** Ties a press's responder to its invoke's deadline. */
export function pendingPress(
  clock: Clock,
  ackMs: number,
  late: (text: string) => Promise<void>,
): PendingPress {
  let done = false;
  let acked = false;
  let settle: (text: string | undefined) => void = () => undefined;
  const inTime = new Promise<string | undefined>((resolve) => {
    settle = resolve;
  });
  return {
    async respond({ text, ephemeral }) {
      if (done) return;
      done = true;
      if (!acked) return settle(text);
      if (ephemeral === false) await late(text);
    },
    answer() {
      const timer = clock.setTimeout(() => settle(undefined), ackMs);
      return inTime.then((text) => {
        clock.clearTimeout(timer);
        acked = true;
        return text;
      });
    },
  };
}
