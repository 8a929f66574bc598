/**
 * One model request's fixed parts: what every request of a turn carries
 * besides the history. The turn makes the request with all of it; the
 * context meter measures the parts that take room in the window.
 */
import type { Provider } from '../provider/types.js';
import type { ToolDefinition } from '../vocabulary.js';

/** One model request's fixed parts. */
export interface ModelCall {
  provider: Provider;
  model: string;
  system: string;
  tools: readonly ToolDefinition[];
  /** Output tokens asked for per request. */
  maxTokens: number;
  /** The model's own output limit: how far a cut tool call may be given more room. */
  maxOutputTokens: number;
  idleTimeoutMs: number;
}
