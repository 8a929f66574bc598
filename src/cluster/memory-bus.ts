/**
 * Control messages inside one process: the default for a single replica.
 * Handlers run after publish() returns, as they would for a message coming
 * back from the database, so a publisher never re-enters its own handler.
 */
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { replicaId } from './lease.js';
import type { ControlBus, ControlEnvelope, ControlHandler } from './types.js';

/** Calls each handler with `envelope`, logging (never throwing) what a handler throws. */
export function deliver(handlers: Iterable<ControlHandler>, envelope: ControlEnvelope, logger: Logger): void {
  for (const handler of [...handlers]) {
    const report = (err: unknown) =>
      logger.error(
        {
          chat: envelope.chat,
          type: envelope.message.type,
          err: err instanceof Error ? err.message : String(err),
        },
        'control message handler failed',
      );
    try {
      const result = handler(envelope);
      if (result && typeof result.then === 'function') result.then(undefined, report);
    } catch (err) {
      report(err);
    }
  }
}

/** Options of {@link createMemoryControlBus}. */
export interface MemoryControlBusOptions {
  origin?: string;
  clock?: Clock;
  logger?: Logger;
}

/** A {@link ControlBus} within this process. */
export function createMemoryControlBus(options: MemoryControlBusOptions = {}): ControlBus {
  const origin = options.origin ?? replicaId();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const handlers = new Set<ControlHandler>();
  let closed = false;
  return {
    origin,
    async publish(chat, message) {
      if (closed) return;
      const envelope: ControlEnvelope = {
        id: randomBytes(8).toString('hex'),
        chat,
        message: structuredClone(message),
        origin,
        sentAt: clock.now(),
      };
      queueMicrotask(() => deliver(handlers, envelope, logger));
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    async ready() {},
    async close() {
      closed = true;
      handlers.clear();
    },
  };
}
