/** The model providers, prompt caching and list prices. */
export { AnthropicProvider, type AnthropicProviderOptions, DEFAULT_MODEL } from './anthropic.js';
export * from './cache.js';
export { mapProviderError } from './errors.js';
export * from './pricing.js';
export type { Provider, ProviderEvent, ProviderMessage, ProviderRequest, ToolDefinition } from './types.js';
