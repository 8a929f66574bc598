/** The model providers, prompt caching and list prices. */

export { EFFORTS, type Effort, THINKING_SETTINGS, type ThinkingSetting } from '../vocabulary.js';
export { AnthropicProvider, type AnthropicProviderOptions, DEFAULT_MODEL } from './anthropic.js';
export * from './cache.js';
export { mapProviderError } from './errors.js';
export { checkModelSettings, type ModelSettingsToCheck } from './model-settings.js';
export {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_OUTPUT,
  getModelInfo,
  KNOWN_MODELS,
  type ModelInfo,
  type ModelOverrides,
} from './models.js';
export * from './pricing.js';
export type { BlockBinding } from './request.js';
export type {
  Provider,
  ProviderEvent,
  ProviderMessage,
  ProviderRequest,
  RefusalDetails,
  ToolDefinition,
} from './types.js';
