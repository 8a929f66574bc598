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
/** Beta that lets a request set `thinking.block_binding` (Fix thinking bound to a different conversation page). */
export const BLOCK_BINDING_BETA = 'thinking-binding-controls-2026-08-01';
/** Betas of mid-conversation tool changes: by reference, and with the tool defined inline. */
export const TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01';
export const INLINE_TOOLS_BETA = 'inline-tools-2026-09-15';
/** Beta of `fallbacks` (Refusals and fallback page). */
export const SERVER_FALLBACK_BETA = 'server-side-fallback-2026-07-01';

/**
 * What a thinking block that fails the prefix check does to a request
 * (`thinking.block_binding.prefix_mismatch_behavior`): `drop_block` removes
 * it (and the rest of its turn's thinking) and the request goes on; `error`
 * is the API's default 400.
 */
export type BlockBinding = 'drop_block' | 'error';

/** The settings the provider adds to every request. */
export interface RequestSettings {
  thinking: ThinkingSetting;
  /** Unset: the model's default effort. */
  effort?: Effort;
  /**
   * Chosen explicitly for every model with preserved thinking; default
   * `drop_block`, so a mismatch costs thinking, never a person's turn.
   */
  blockBinding?: BlockBinding;
  /**
   * Retry a request the model's classifiers refuse on the model Anthropic
   * recommends for the refusal (`fallbacks: "default"` where the model takes
   * it); default on.
   */
  fallback?: boolean;
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
  const messages = toApiMessages(request.messages, model.systemMessages);
  toolChangeBetas(messages, betas);
  const fallbacks = settings.fallback !== false && model.fallback === 'server';
  if (fallbacks) betas.push(SERVER_FALLBACK_BETA);
  const body = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages,
    ...(request.system ? { system: request.system } : {}),
    ...(request.tools.length > 0 ? { tools: toApiTools(request.tools) } : {}),
    ...(thinking ? { thinking } : {}),
    // Refusals and fallback page: the API retries a refused request on the recommended model.
    ...(fallbacks ? { fallbacks: 'default' } : {}),
    ...(settings.effort && model.efforts.includes(settings.effort)
      ? { output_config: { effort: settings.effort } }
      : {}),
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
  const param: Record<string, unknown> = { type: 'adaptive' };
  // Without display `updates` the text a current model writes between tool
  // calls arrives inside thinking blocks nobody sees, and the chat goes quiet.
  if (model.displayUpdates) {
    betas.push(DISPLAY_UPDATES_BETA);
    param.display = 'updates';
  }
  if (model.preservedThinking) {
    // Stored with nothing but the code's default: the same choice on every request of every conversation.
    betas.push(BLOCK_BINDING_BETA);
    param.block_binding = { prefix_mismatch_behavior: settings.blockBinding ?? 'drop_block' };
  }
  if (param.display !== undefined || param.block_binding !== undefined) return param;
  // Opus 4.6 and Sonnet 4.6 think adaptively only when asked (their model pages).
  if (model.thinking === 'adaptive-on-request') return param;
  // Everything else keeps the model's own default (design.md: adaptive unless a setting says otherwise).
  return undefined;
}

/** The betas a mid-conversation tool change needs (Mid-conversation system messages and tool changes page). */
function toolChangeBetas(messages: readonly Anthropic.MessageParam[], betas: string[]): void {
  let changes = false;
  let inline = false;
  for (const message of messages) {
    if ((message.role as string) !== 'system' || !Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{ type: string; tool?: { type?: string } }>) {
      if (block.type !== 'tool_addition' && block.type !== 'tool_removal') continue;
      changes = true;
      if (block.tool?.type === 'tool_definition') inline = true;
    }
  }
  if (changes) betas.push(TOOL_CHANGES_BETA);
  if (inline) betas.push(INLINE_TOOLS_BETA);
}
