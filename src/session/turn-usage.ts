/** A turn's token usage, summed over its model calls. */
import type { TokenUsage } from './types.js';

/** Adds `usage` to `total` in place, keeping the cache writes' lifetime split. */
export function addUsage(total: TokenUsage, usage: TokenUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  if (usage.webSearchRequests)
    total.webSearchRequests = (total.webSearchRequests ?? 0) + usage.webSearchRequests;
  if (usage.cacheReadInputTokens)
    total.cacheReadInputTokens = (total.cacheReadInputTokens ?? 0) + usage.cacheReadInputTokens;
  if (usage.cacheCreationInputTokens)
    total.cacheCreationInputTokens = (total.cacheCreationInputTokens ?? 0) + usage.cacheCreationInputTokens;
  // Keep the lifetime split: a 1-hour write costs more than a 5-minute one, and the turn's cost is priced from this sum.
  if (total.cacheCreation || usage.cacheCreation) {
    const a = writesByLifetime(total);
    const b = writesByLifetime(usage);
    total.cacheCreation = {
      ephemeral5mInputTokens: a.ephemeral5mInputTokens + b.ephemeral5mInputTokens,
      ephemeral1hInputTokens: a.ephemeral1hInputTokens + b.ephemeral1hInputTokens,
    };
  }
}

/** A request's cache writes by lifetime; writes reported without a split count as 5-minute writes, as in the ledger. */
function writesByLifetime(usage: TokenUsage): NonNullable<TokenUsage['cacheCreation']> {
  return (
    usage.cacheCreation ?? {
      ephemeral5mInputTokens: usage.cacheCreationInputTokens ?? 0,
      ephemeral1hInputTokens: 0,
    }
  );
}
