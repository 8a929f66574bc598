/**
 * The Anthropic provider: streams one Messages API request through
 * @anthropic-ai/sdk and yields switchboard's provider events.
 */
import Anthropic from '@anthropic-ai/sdk';
import { SwitchboardError } from '../errors.js';
import type { TokenUsage } from '../vocabulary.js';
import { withCacheBreakpoints } from './cache.js';
import { toApiMessages, toApiTools } from './convert.js';
import { mapProviderError } from './errors.js';
import type { Provider, ProviderEvent, ProviderRequest } from './types.js';

/** Options for {@link AnthropicProvider}. */
export interface AnthropicProviderOptions {
  /** The API key (ANTHROPIC_API_KEY). Required; never logged or shown. */
  apiKey: string;
  /** Another Messages API endpoint (a proxy, or a test fake). */
  baseURL?: string;
  /** Model used when the session names none; default `claude-sonnet-4-6`. */
  model?: string;
  /** SDK retries for 408/409/429/5xx and connection errors; default 2. */
  maxRetries?: number;
  /** Per-request timeout of the SDK in ms; default 10 minutes. */
  timeoutMs?: number;
}

/** The model used when neither the provider nor the session names one. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

interface PendingToolUse {
  id: string;
  name: string;
  json: string;
}

/**
 * @example
 * const provider = new AnthropicProvider({ apiKey: process.env.ANTHROPIC_API_KEY ?? '' });
 * const session = new InteractiveSession({ cwd: process.cwd(), provider });
 */
export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  readonly defaultModel: string;
  readonly #client: Anthropic;
  readonly #secrets: string[];

  constructor(options: AnthropicProviderOptions) {
    if (!options.apiKey) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        'ANTHROPIC_API_KEY is not set: copy .env.example to .env and fill it in.',
        { detail: { variable: 'ANTHROPIC_API_KEY' } },
      );
    }
    this.defaultModel = options.model ?? DEFAULT_MODEL;
    this.#secrets = [options.apiKey];
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
  }

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const { signal } = request;
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let stopReason = 'end_turn';
    const tools = new Map<number, PendingToolUse>();
    let ended = false;
    try {
      const params: Anthropic.MessageCreateParamsStreaming = {
        model: request.model,
        max_tokens: request.maxTokens,
        messages: toApiMessages(request.messages),
        ...(request.system ? { system: request.system } : {}),
        ...(request.tools.length > 0 ? { tools: toApiTools(request.tools) } : {}),
        stream: true,
      };
      const cache = request.cache ?? '5m';
      const stream = this.#client.messages.stream(
        cache === 'off' ? params : withCacheBreakpoints(params, cache),
        { signal },
      );
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start': {
            const u = event.message.usage;
            usage.inputTokens = u.input_tokens ?? 0;
            usage.outputTokens = u.output_tokens ?? 0;
            if (u.cache_read_input_tokens) usage.cacheReadInputTokens = u.cache_read_input_tokens;
            if (u.cache_creation_input_tokens) usage.cacheCreationInputTokens = u.cache_creation_input_tokens;
            if (u.cache_creation?.ephemeral_1h_input_tokens || u.cache_creation?.ephemeral_5m_input_tokens)
              usage.cacheCreation = {
                ephemeral5mInputTokens: u.cache_creation.ephemeral_5m_input_tokens ?? 0,
                ephemeral1hInputTokens: u.cache_creation.ephemeral_1h_input_tokens ?? 0,
              };
            break;
          }
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') {
              const block = event.content_block;
              tools.set(event.index, { id: block.id, name: block.name, json: '' });
            }
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') {
              yield { type: 'text_delta', text: event.delta.text };
            } else if (event.delta.type === 'input_json_delta') {
              const pending = tools.get(event.index);
              if (pending) pending.json += event.delta.partial_json;
              // A long tool input (a whole file for Write) can stream for a while without text.
              yield { type: 'progress' };
            }
            break;
          case 'content_block_stop': {
            const pending = tools.get(event.index);
            if (pending) {
              tools.delete(event.index);
              yield { type: 'tool_use', id: pending.id, name: pending.name, input: parseInput(pending) };
            }
            break;
          }
          case 'message_delta': {
            if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
            const u = event.usage;
            // message_delta usage is cumulative for the whole message.
            if (u.output_tokens != null) usage.outputTokens = u.output_tokens;
            if (u.input_tokens != null) usage.inputTokens = u.input_tokens;
            if (u.cache_read_input_tokens != null) usage.cacheReadInputTokens = u.cache_read_input_tokens;
            if (u.cache_creation_input_tokens != null)
              usage.cacheCreationInputTokens = u.cache_creation_input_tokens;
            break;
          }
          case 'message_stop':
            ended = true;
            yield { type: 'message_end', stopReason, usage: { ...usage } };
            break;
        }
      }
    } catch (err) {
      throw mapProviderError(err, signal, this.#secrets);
    }
    if (!ended) {
      if (signal.aborted) throw mapProviderError(signal.reason, signal, this.#secrets);
      throw new SwitchboardError(
        'PROVIDER_ERROR',
        'The Anthropic API closed the reply before it was finished. Try again.',
      );
    }
  }
}

function parseInput(pending: PendingToolUse): Record<string, unknown> {
  if (pending.json.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(pending.json);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch (err) {
    throw new SwitchboardError(
      'PROVIDER_ERROR',
      `The model sent unreadable arguments for the tool ${pending.name}. Try again.`,
      { cause: err },
    );
  }
}
