/**
 * Counts every call the core makes to a chat platform, and the ones the
 * platform refused for rate, without the adapter or the outbox knowing: the
 * adapter's outbound methods are wrapped in place, so its identity (and any
 * extra members, like the console's `inputEnded`) stays what it was.
 */
import type { ChatAdapter } from '../bot/adapter-contract.js';
import { isErrorCode } from '../errors.js';
import type { SwitchboardMetrics } from './metrics.js';

/** The outbound methods of the adapter contract; each is a `method` label. */
const OUTBOUND = ['send', 'edit', 'delete', 'typing', 'startStream', 'updateStream', 'finishStream'] as const;

/**
 * Wraps `adapter`'s outbound methods so each call is counted by platform,
 * method and outcome. Returns the same adapter object.
 */
export function instrumentAdapter<A extends ChatAdapter>(adapter: A, metrics: SwitchboardMetrics): A {
  const target = adapter as unknown as Record<string, unknown>;
  for (const method of OUTBOUND) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    target[method] = async (...args: unknown[]) => {
      try {
        const result = await (original as (...a: unknown[]) => Promise<unknown>).apply(adapter, args);
        metrics.platformCall(adapter.platform, method, 'ok');
        return result;
      } catch (err) {
        metrics.platformCall(
          adapter.platform,
          method,
          isErrorCode(err, 'RATE_LIMITED') ? 'rate_limited' : 'error',
        );
        throw err;
      }
    };
  }
  return adapter;
}
