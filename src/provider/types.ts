/**
 * The provider contract: stream one model request. The session owns the
 * agent loop (run tools, send results, ask again); a provider only streams.
 */
import type { ApiBlock, ContentBlock, StopReason, TokenUsage, ToolDefinition } from '../vocabulary.js';
import type { CacheLifetime } from './cache.js';
import type { ModelInfo } from './models.js';

export type { ToolDefinition } from '../vocabulary.js';

/**
 * A message as sent to the provider. `system`: a mid-conversation system
 * message (what changed since the conversation's system prompt and tools).
 */
export interface ProviderMessage {
  role: 'user' | 'assistant' | 'system';
  content: ContentBlock[];
}

/** One model request. */
export interface ProviderRequest {
  model: string;
  system?: string;
  messages: ProviderMessage[];
  tools: ToolDefinition[];
  maxTokens: number;
  /**
   * Prompt caching for this request: the lifetime of the cache entries it
   * writes, or `off`. Default `5m` (caching is on unless turned off).
   */
  cache?: CacheLifetime | 'off';
  /** Aborting must reach the HTTP stream. */
  signal: AbortSignal;
}

/** Why the model declined, from the API's `stop_details` on a `refusal`. */
export interface RefusalDetails {
  category?: string;
  explanation?: string;
  /** The model Anthropic recommends retrying a refused request on (`stop_details.recommended_model`). */
  recommendedModel?: string;
}

/** What a provider yields while streaming one response. */
export type ProviderEvent =
  /** Reply text; `index` is the content block it belongs to (a new index starts a new text block). */
  | { type: 'text_delta'; text: string; index?: number }
  /**
   * Thinking text the model shows (with display `updates`: the progress notes
   * it writes between tool calls). For the status line; the whole block
   * arrives as a `block` event.
   */
  | { type: 'thinking_delta'; text: string }
  /**
   * A finished block other than text and client tool calls, exactly as
   * received: thinking, redacted thinking, and every other type in the API's
   * own shape (server tool calls and results, MCP blocks, `fallback`,
   * `compaction`, types newer than this version).
   */
  | { type: 'block'; block: Extract<ContentBlock, { type: 'thinking' | 'redacted_thinking' | 'api' }> }
  /** The citations of the text block at `index` (its `citations_delta` events), sent when the block ends. */
  | { type: 'citations'; index: number; citations: ApiBlock[] }
  /** `caller`: the API's `tool_use.caller`, when it sent one; it goes back with the call. */
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; caller?: ApiBlock }
  /**
   * A tool call whose input was cut off (the reply hit `max_tokens` while the
   * model was writing it): it must not run, and must not go back as is.
   */
  | { type: 'tool_use_cut'; id: string; name: string }
  | { type: 'message_end'; stopReason: StopReason | string; usage: TokenUsage; refusal?: RefusalDetails }
  /**
   * The stream is alive but has nothing to show yet (a tool call's input is
   * still arriving). Resets the session's idle watchdog; optional to send.
   */
  | { type: 'progress' };

/**
 * A model backend. `stream` yields text deltas, finished blocks and complete
 * tool calls in the order the model wrote them, then exactly one
 * `message_end`. Errors are thrown as `SwitchboardError` with a `PROVIDER_*`
 * code and a message fit to show a user; an abort throws with code `ABORTED`.
 */
export interface Provider {
  readonly name: string;
  /** Model used when the session does not name one. */
  readonly defaultModel: string;
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>;
  /** The model's window, output limit and thinking settings (the registry, with the provider's overrides). */
  describeModel?(model: string): ModelInfo;
  /**
   * Whether a refused request may be retried by the session on the model the
   * refusal recommends (a model with classifiers but no server-side fallback,
   * and fallback not turned off).
   */
  retriesRefusals?(model: string): boolean;
  /**
   * Counts the input tokens of a request exactly (the token-counting
   * endpoint). Used near the compaction threshold and the guard, where an
   * estimate is not good enough.
   */
  countTokens?(
    request: Omit<ProviderRequest, 'signal' | 'maxTokens'> & { signal?: AbortSignal },
  ): Promise<number>;
}
