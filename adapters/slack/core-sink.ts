/**
 * Handing an event to the bot core from inside a Bolt listener: a sink that
 * fails is logged, never thrown into Bolt (which would answer Slack with an
 * error and have it retry the delivery).
 */
import type { ChatEvent, EventSink } from '../../src/bot/adapter-contract.js';
import type { Logger } from '../../src/logger.js';

/** Gives `event` to `sink` (when one is set); a rejection is logged as `what` and swallowed. */
export async function dispatchToCore(
  sink: EventSink | undefined,
  event: ChatEvent,
  logger: Logger,
  what: string,
): Promise<void> {
  if (!sink) return;
  try {
    await sink(event);
  } catch (err) {
    logger.error({ err, chat: event.chat, type: event.type }, `the bot core rejected a Slack ${what}`);
  }
}
