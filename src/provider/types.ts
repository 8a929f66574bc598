/**
 * The provider contract: stream one model request. The session owns the
 * agent loop (run tools, send results, ask again); a provider only streams.
 */
import type { ContentBlock, TokenUsage, ToolDefinition } from '../vocabulary.js';
import type { CacheLifetime } from './cache.js';

export type { ToolDefinition } from '../vocabulary.js';

/** A message as sent to the provider. */
export interface ProviderMessage {
  role: 'user' | 'assistant';
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

/** What a provider yields while streaming one response. */
export type ProviderEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'message_end'; stopReason: string; usage: TokenUsage }
  /**
   * The stream is alive but has nothing to show yet (a tool call's input is
   * still arriving). Resets the session's idle watchdog; optional to send.
   */
  | { type: 'progress' };

/**
 * A model backend. `stream` yields text deltas and complete tool calls, then
 * exactly one `message_end`. Errors are thrown as `SwitchboardError` with a
 * `PROVIDER_*` code and a message fit to show a user; an abort throws with
 * code `ABORTED`.
 */
export interface Provider {
  readonly name: string;
  /** Model used when the session does not name one. */
  readonly defaultModel: string;
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>;
}
