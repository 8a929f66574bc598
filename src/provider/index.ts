/** The model providers. */
export { AnthropicProvider, type AnthropicProviderOptions, DEFAULT_MODEL } from './anthropic.js';
export {
  CACHE_SETTINGS,
  type CacheLifetime,
  type CacheSetting,
  chooseCacheLifetime,
  withCacheBreakpoints,
} from './cache.js';
export { mapProviderError } from './errors.js';
export {
  DEFAULT_PRICES,
  formatUsd,
  type LedgerCost,
  LONG_PROMPT_TOKENS,
  ledgerCost,
  type ModelPrice,
  type PriceTable,
  parsePriceOverrides,
  priceFor,
  priceTable,
} from './pricing.js';
export type { Provider, ProviderEvent, ProviderMessage, ProviderRequest, ToolDefinition } from './types.js';
