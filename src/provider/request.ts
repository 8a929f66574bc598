/**
 * The Messages API request body, built in one place. Everything a request
 * carries is decided here, so prompt-cache placement has a single point to
 * plug into, and the prefix stays byte-stable from call to call: tools in
 * the order given, the system prompt as given, history serialised the same
 * way every time, and nothing time-dependent.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Effort, ThinkingSetting } from '../vocabulary.js';
import { toApiMessages, toApiTools } from './convert.js';
import type { ModelInfo } from './models.js';
import type { ProviderRequest } from './types.js';

/** Beta that lets `thinking.display` be `updates` (the progress notes between tool calls). */
export const DISPLAY_UPDATES_BETA = 'thinking-display-updates-2026-08-18';

/** The settings the provider adds to every request. */
export interface RequestSettings {
  thinking: ThinkingSetting;
  /** Unset: the model's default effort. */
  effort?: Effort;
}

/** A request body and the beta names it needs. */
export interface BuiltRequest {
  body: Anthropic.MessageCreateParamsStreaming;
  betas: string[];
}

/**
 * Builds the body for `request` on `model`. It never carries what the
 * current models reject with a 400 (Sonnet 5.5 migration guide): no
 * thinking budget, no sampling parameters, no forced tool choice, no
 * `thinking: disabled`; the session never ends the messages with an
 * assistant prefill.
 */
export function buildRequestBody(
  request: Omit<ProviderRequest, 'signal'>,
  model: ModelInfo,
  settings: RequestSettings,
): BuiltRequest {
  const betas: string[] = [];
  const thinking = thinkingParam(model, settings, betas);
  const body = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: toApiMessages(request.messages),
    ...(request.system ? { system: request.system } : {}),
    ...(request.tools.length > 0 ? { tools: toApiTools(request.tools) } : {}),
    ...(thinking ? { thinking } : {}),
    ...(settings.effort && model.effort ? { output_config: { effort: settings.effort } } : {}),
    stream: true as const,
  };
  // `display: updates` is newer than the SDK's non-beta types; the wire format is the same.
  return { body: body as unknown as Anthropic.MessageCreateParamsStreaming, betas };
}

function thinkingParam(
  model: ModelInfo,
  settings: RequestSettings,
  betas: string[],
): Record<string, unknown> | undefined {
  if (settings.thinking === 'between_tools' && model.thinking === 'adaptive')
    return { type: 'between_tools' };
  // Without display `updates` the text a current model writes between tool
  // calls arrives inside thinking blocks nobody sees, and the chat goes quiet.
  if (model.displayUpdates) {
    betas.push(DISPLAY_UPDATES_BETA);
    return { type: 'adaptive', display: 'updates' };
  }
  // Everything else keeps the model's own default (design.md: adaptive unless a setting says otherwise).
  return undefined;
}
