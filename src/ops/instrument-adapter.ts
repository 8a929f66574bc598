/**
 * Counts every call the core makes to a chat platform, and the ones the
 * platform refused for rate, without the adapter or the outbox knowing: a
 * hook on the adapter's one outbound funnel (outbound-funnel.ts), so a call
 * added to the contract (an upload, a thread, a stream) is counted the day
 * it exists.
 */
import type { ChatAdapter } from '../bot/adapter-contract.js';
import { isErrorCode } from '../errors.js';
import type { SwitchboardMetrics } from './metrics.js';
import { interceptOutbound } from './outbound-funnel.js';

/**
 * Counts each outbound call of `adapter` by platform, method (the contract's
 * name: `send`, `sendFile`, `openThread`...) and outcome. Returns the same
 * adapter object.
 */
export function instrumentAdapter<A extends ChatAdapter>(adapter: A, metrics: SwitchboardMetrics): A {
  return interceptOutbound(adapter, async ({ platform, method }, next) => {
    try {
      const result = await next();
      metrics.platformCall(platform, method, 'ok');
      return result;
    } catch (err) {
      metrics.platformCall(platform, method, isErrorCode(err, 'RATE_LIMITED') ? 'rate_limited' : 'error');
      throw err;
    }
  });
}
