/**
 * The Anthropic provider: streams one Messages API request through
 * @anthropic-ai/sdk and yields switchboard's provider events, every content
 * block in the order the model wrote it and thinking blocks byte for byte.
 */
import Anthropic from '@anthropic-ai/sdk';
import { SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ApiBlock, Effort, ThinkingSetting, TokenUsage } from '../vocabulary.js';
import { BlockAssembler, unreadableArguments } from './blocks.js';
import { withCacheBreakpoints } from './cache.js';
import { mapProviderError } from './errors.js';
import { checkModelSettings } from './model-settings.js';
import { getModelInfo, type ModelInfo, type ModelOverrides } from './models.js';
import { type BlockBinding, buildRequestBody, type RequestSettings } from './request.js';
import type { Provider, ProviderEvent, ProviderRequest, RefusalDetails } from './types.js';

/** Options for {@link AnthropicProvider}. */
export interface AnthropicProviderOptions {
  /** The API key (ANTHROPIC_API_KEY). Required; never logged or shown. */
  apiKey: string;
  /** Another Messages API endpoint (a proxy, or a test fake). */
  baseURL?: string;
  /** Model used when the session names none; default `claude-sonnet-5-5`. */
  model?: string;
  /** SDK retries for 408/409/429/5xx and connection errors; default 2. */
  maxRetries?: number;
  /** Per-request timeout of the SDK in ms; default 10 minutes. */
  timeoutMs?: number;
  /** `output_config.effort` (SWITCHBOARD_EFFORT); default the model's own. */
  effort?: Effort;
  /**
   * SWITCHBOARD_FALLBACK: a request the model's classifiers refuse is retried
   * on the recommended fallback model (Refusals and fallback page); default on.
   */
  fallback?: boolean;
  /**
   * What a thinking block that fails the API's prefix check does to a
   * request, on the models with preserved thinking: `drop_block` (default)
   * removes it and the request goes on; `error` is a 400. The session keeps
   * its conversations append-only, so a mismatch is rare either way.
   */
  blockBinding?: BlockBinding;
  /** SWITCHBOARD_THINKING; default `adaptive` (the model's default). */
  thinking?: ThinkingSetting;
  /** Window and output limit that override the registry (SWITCHBOARD_CONTEXT_WINDOW, SWITCHBOARD_MAX_OUTPUT_TOKENS). */
  models?: ModelOverrides;
  /** Warned once per unknown model. */
  logger?: Logger;
}

/** The model used when neither the provider nor the session names one: the current Sonnet. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

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
  readonly #settings: RequestSettings;
  readonly #overrides: ModelOverrides;
  readonly #logger: Logger | undefined;

  constructor(options: AnthropicProviderOptions) {
    if (!options.apiKey) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        'ANTHROPIC_API_KEY is not set: copy .env.example to .env and fill it in.',
        { detail: { variable: 'ANTHROPIC_API_KEY' } },
      );
    }
    this.defaultModel = options.model ?? DEFAULT_MODEL;
    // A setting the model refuses fails here, once, not in every chat turn.
    checkModelSettings(this.defaultModel, {
      ...(options.effort === undefined ? {} : { effort: options.effort }),
      ...(options.thinking === undefined ? {} : { thinking: options.thinking }),
    });
    this.#secrets = [options.apiKey];
    this.#settings = {
      thinking: options.thinking ?? 'adaptive',
      fallback: options.fallback ?? true,
      blockBinding: options.blockBinding ?? 'drop_block',
      ...(options.effort === undefined ? {} : { effort: options.effort }),
    };
    this.#overrides = options.models ?? {};
    this.#logger = options.logger;
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
  }

  describeModel(model: string): ModelInfo {
    return getModelInfo(model, this.#overrides, this.#logger);
  }

  retriesRefusals(model: string): boolean {
    return this.#settings.fallback !== false && this.describeModel(model).fallback === 'client';
  }

  async countTokens(
    request: Omit<ProviderRequest, 'signal' | 'maxTokens'> & { signal?: AbortSignal },
  ): Promise<number> {
    const { body, betas } = buildRequestBody(
      { ...request, maxTokens: 1 },
      this.describeModel(request.model),
      this.#settings,
    );
    const { max_tokens: _max, stream: _stream, ...rest } = body;
    // What to do after a refusal is no part of what is counted.
    const { fallbacks: _fallbacks, ...params } = rest as typeof rest & { fallbacks?: unknown };
    try {
      const result = await this.#client.messages.countTokens(params as Anthropic.MessageCountTokensParams, {
        ...(request.signal ? { signal: request.signal } : {}),
        // The same betas as the request it measures (display `updates` is one).
        ...(betas.length > 0 ? { headers: { 'anthropic-beta': betas.join(',') } } : {}),
      });
      return result.input_tokens;
    } catch (err) {
      throw this.#failed(err, request.signal, request.model);
    }
  }

  /** The error for a failed call, logged with its request-id (the API's support reference). */
  #failed(err: unknown, signal: AbortSignal | undefined, model: string): SwitchboardError {
    const error = mapProviderError(err, signal, this.#secrets);
    if (error.code !== 'ABORTED') {
      const requestId = error.detail.requestId;
      this.#logger?.warn(
        { model, code: error.code, ...(requestId ? { requestId } : {}) },
        `model request failed: ${error.message}`,
      );
    }
    return error;
  }

  async *stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const { signal } = request;
    const built = buildRequestBody(request, this.describeModel(request.model), this.#settings);
    const { betas } = built;
    // Caching plugs in here, on the finished body: the breakpoints never change what is sent before them.
    const cache = request.cache ?? '5m';
    const body = cache === 'off' ? built.body : withCacheBreakpoints(built.body, cache);
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
    let stopReason = 'end_turn';
    let refusal: RefusalDetails | undefined;
    const blocks = new BlockAssembler();
    let ended = false;
    try {
      // The raw event stream, not the SDK's accumulating MessageStream: that one shares the
      // message_start object with its snapshot and fills its `content` in as events arrive.
      const stream = await this.#client.messages.create(body, {
        signal,
        ...(betas.length > 0 ? { headers: { 'anthropic-beta': betas.join(',') } } : {}),
      });
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start': {
            readUsage(usage, event.message.usage);
            // A message can arrive whole in its start event, stop reason included.
            const { content, stop_reason: startStop } = event.message as {
              content?: unknown;
              stop_reason?: string | null;
            };
            if (startStop) stopReason = startStop;
            if (Array.isArray(content)) yield* blocks.prefilled(content as ApiBlock[]);
            break;
          }
          case 'message_delta': {
            if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
            const details = (event.delta as { stop_details?: ApiRefusal | null }).stop_details;
            if (details) refusal = refusalDetails(details);
            // message_delta usage is cumulative for the whole message.
            readUsage(usage, event.usage);
            break;
          }
          case 'message_stop':
            // A tool call still open, or unreadable, at the output limit was cut off mid-input.
            for (const cut of blocks.openToolCalls()) {
              if (stopReason !== 'max_tokens') throw unreadableArguments(cut.name);
              yield { type: 'tool_use_cut', id: cut.id, name: cut.name };
            }
            ended = true;
            yield { type: 'message_end', stopReason, usage: { ...usage }, ...(refusal ? { refusal } : {}) };
            break;
          default:
            yield* blocks.accept(event);
        }
      }
    } catch (err) {
      throw this.#failed(err, signal, request.model);
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

/** `stop_details` of a refusal, as the API sends it. */
interface ApiRefusal {
  category?: string | null;
  explanation?: string | null;
  recommended_model?: string | null;
}

function refusalDetails(details: ApiRefusal): RefusalDetails {
  return {
    ...(details.category ? { category: details.category } : {}),
    ...(details.explanation ? { explanation: details.explanation } : {}),
    ...(details.recommended_model ? { recommendedModel: details.recommended_model } : {}),
  };
}

interface ApiUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: {
    ephemeral_5m_input_tokens?: number | null;
    ephemeral_1h_input_tokens?: number | null;
  } | null;
  server_tool_use?: { web_search_requests?: number | null } | null;
}

function readUsage(usage: TokenUsage, u: ApiUsage): void {
  if (u.input_tokens != null) usage.inputTokens = u.input_tokens;
  if (u.output_tokens != null) usage.outputTokens = u.output_tokens;
  if (u.cache_read_input_tokens) usage.cacheReadInputTokens = u.cache_read_input_tokens;
  if (u.cache_creation_input_tokens) usage.cacheCreationInputTokens = u.cache_creation_input_tokens;
  // Web search tool page: the searches of the request, counted in usage and billed per search.
  const searches = u.server_tool_use?.web_search_requests;
  if (searches) usage.webSearchRequests = searches;
  // The writes split by lifetime: a 1-hour write costs more than a 5-minute one.
  const split = u.cache_creation;
  if (split?.ephemeral_1h_input_tokens || split?.ephemeral_5m_input_tokens)
    usage.cacheCreation = {
      ephemeral5mInputTokens: split.ephemeral_5m_input_tokens ?? 0,
      ephemeral1hInputTokens: split.ephemeral_1h_input_tokens ?? 0,
    };
}
