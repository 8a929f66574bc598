/** The model providers. */
export { AnthropicProvider, type AnthropicProviderOptions, DEFAULT_MODEL } from './anthropic.js';
export { mapProviderError } from './errors.js';
export type { Provider, ProviderEvent, ProviderMessage, ProviderRequest, ToolDefinition } from './types.js';
