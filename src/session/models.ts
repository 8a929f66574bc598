/**
 * The model metadata registry: context window and output limit per model,
 * matched by prefix so dated ids (`claude-sonnet-4-5-20250929`) resolve too.
 */
import type { Logger } from '../logger.js';

/** What the session needs to know about a model. */
export interface ModelInfo {
  /** The registry entry that matched, or the model id itself when unknown. */
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** False when the model is not in the registry and defaults were used. */
  known: boolean;
}

interface Entry {
  prefix: string;
  contextWindow: number;
  maxOutputTokens: number;
}

// Longer prefixes first, so a more specific entry wins.
const REGISTRY: readonly Entry[] = [
  { prefix: 'claude-opus-4-6', contextWindow: 1_000_000, maxOutputTokens: 128_000 },
  { prefix: 'claude-sonnet-4-6', contextWindow: 1_000_000, maxOutputTokens: 64_000 },
  { prefix: 'claude-opus-4-5', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { prefix: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 64_000 },
  { prefix: 'claude-haiku-4-5', contextWindow: 200_000, maxOutputTokens: 64_000 },
];

/** Window assumed for a model the registry does not know. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
const DEFAULT_MAX_OUTPUT = 8_192;

const warned = new Set<string>();

/**
 * Looks a model up by prefix. An unknown model gets a 200K window and one
 * warning per model id for the life of the process (not one per turn).
 *
 * @example
 * getModelInfo('claude-sonnet-4-5-20250929').contextWindow; // 200000
 */
export function getModelInfo(model: string, logger?: Logger): ModelInfo {
  const entry = REGISTRY.find((e) => model.startsWith(e.prefix));
  if (entry) {
    return {
      id: entry.prefix,
      contextWindow: entry.contextWindow,
      maxOutputTokens: entry.maxOutputTokens,
      known: true,
    };
  }
  if (!warned.has(model)) {
    warned.add(model);
    logger?.warn(
      { model, assumedContextWindow: DEFAULT_CONTEXT_WINDOW },
      `Unknown model "${model}": assuming a ${DEFAULT_CONTEXT_WINDOW}-token context window`,
    );
  }
  return {
    id: model,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    maxOutputTokens: DEFAULT_MAX_OUTPUT,
    known: false,
  };
}
