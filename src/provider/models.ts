/**
 * What switchboard knows about each Claude model: its context window, its
 * output limit, and which thinking settings it accepts. Looked up by prefix,
 * so dated ids (`claude-sonnet-4-5-20250929`) resolve too. Figures from the
 * model pages of platform.claude.com/docs (models overview, each model's
 * overview, the Sonnet 5.5 migration guide), as of 2026-12-01.
 */
import type { Logger } from '../logger.js';
import { EFFORTS, type Effort } from '../vocabulary.js';

/** How a model thinks when the request leaves `thinking` out. */
export type ThinkingStyle =
  /** Adaptive thinking is on by default and cannot be turned off (Fable, Opus 5.5). */
  | 'adaptive-always'
  /** Adaptive by default; `between_tools` turns off the thinking before the first answer (Sonnet 5.5, Haiku 5.5). */
  | 'adaptive'
  /** Adaptive by default; `disabled` is accepted (Sonnet 5, Opus 5, Opus 4.7–4.8). */
  | 'adaptive-optional'
  /**
   * Adaptive thinking when the request asks for it with `thinking: {type:
   * "adaptive"}` (Opus 4.6, Sonnet 4.6: their model pages say to set it).
   */
  | 'adaptive-on-request'
  /** Thinks only when asked (manual extended thinking: Haiku 4.5, the 4.5 models). */
  | 'off-by-default';

/** What the session and the provider need to know about a model. */
export interface ModelInfo {
  /** The registry entry that matched, or the model id itself when unknown. */
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** False when the model is not in the registry and defaults (or settings) were used. */
  known: boolean;
  thinking: ThinkingStyle;
  /**
   * The model takes `thinking.display: "updates"` (the
   * `thinking-display-updates-2026-08-18` beta), which returns the progress
   * notes it writes between tool calls as thinking text.
   */
  displayUpdates: boolean;
  /** The model takes `output_config.effort`. */
  effort: boolean;
  /** The `output_config.effort` levels the model accepts (Effort page), lowest first; empty when none. */
  efforts: readonly Effort[];
  /**
   * Thinking blocks sent back get a prefix check (Prefix checks on thinking
   * blocks page: Fable/Mythos 5.1–5.2, Opus 5.5, Sonnet 5.5, Haiku 5.5), and
   * `thinking.block_binding` chooses what a mismatch does.
   */
  preservedThinking: boolean;
  /**
   * The model takes `role: "system"` messages inside `messages` and
   * mid-conversation tool changes (Mid-conversation system messages and tool
   * changes page: Fable/Mythos 5–5.1, Opus 5.5, Opus 5, Opus 4.8, Sonnet 5.5,
   * Haiku 5.5; not Sonnet 5).
   */
  systemMessages: boolean;
  /**
   * The model's classifiers may refuse (`stop_reason: "refusal"`), and a
   * refused request can be retried on another model (Refusals and fallback
   * page: Fable 5–5.2, Opus 5.5, Opus 5, Sonnet 5.5, Haiku 5.5): `server`
   * where the request may ask for it with `fallbacks: "default"`, `client`
   * where the retry is the caller's (Haiku 5.5 has no server-side fallback).
   */
  fallback: 'server' | 'client' | 'none';
  /**
   * The versioned types of the web tools the model takes, absent where it
   * takes none (Web search tool and Web fetch tool pages, their supported
   * models): the `20260318` versions (dynamic filtering, response inclusion)
   * on Claude 4.6 and later, the basic ones on the 4.5 models.
   */
  webTools: { search?: string; fetch?: string };
}

type Entry = Omit<ModelInfo, 'id' | 'known' | 'effort' | 'fallback' | 'webTools'> & {
  prefix: string;
  fallback?: ModelInfo['fallback'];
  webTools?: ModelInfo['webTools'];
};

/** The current web tool versions (Web search tool / Web fetch tool pages, 2026-12-01). */
export const CURRENT_WEB_TOOLS = { search: 'web_search_20260318', fetch: 'web_fetch_20260318' } as const;
/** The basic versions, without dynamic filtering, for the models before 4.6. */
const BASIC_WEB_TOOLS = { search: 'web_search_20250305', fetch: 'web_fetch_20250910' } as const;

const M = 1_000_000;
/** Effort page: every level on Opus 4.7+ and the 5.x line; Opus 4.6 / Sonnet 4.6 predate `xhigh`; Opus 4.5 has low–high. */
const ALL_EFFORTS = EFFORTS;
const NO_XHIGH: readonly Effort[] = ['low', 'medium', 'high', 'max'];
const CURRENT = { contextWindow: M, maxOutputTokens: 128_000, efforts: ALL_EFFORTS } as const;
/** Prefix checks and mid-conversation system messages (see {@link ModelInfo}). */
const BOUND = { preservedThinking: true, systemMessages: true } as const;
const UNBOUND_SYSTEM = { preservedThinking: false, systemMessages: true } as const;
const NEITHER = { preservedThinking: false, systemMessages: false } as const;

// Longer prefixes first, so a more specific entry wins (`claude-opus-5-5` before `claude-opus-5`).
const REGISTRY: readonly Entry[] = [
  {
    prefix: 'claude-fable-5-2',
    fallback: 'server',
    ...CURRENT,
    ...BOUND,
    thinking: 'adaptive-always',
    displayUpdates: true,
  },
  {
    prefix: 'claude-fable-5-1',
    fallback: 'server',
    ...CURRENT,
    ...BOUND,
    thinking: 'adaptive-always',
    displayUpdates: true,
  },
  {
    prefix: 'claude-fable-5',
    fallback: 'server',
    ...CURRENT,
    ...UNBOUND_SYSTEM,
    thinking: 'adaptive-always',
    displayUpdates: true,
  },
  { prefix: 'claude-mythos-5-2', ...CURRENT, ...BOUND, thinking: 'adaptive-always', displayUpdates: true },
  { prefix: 'claude-mythos-5-1', ...CURRENT, ...BOUND, thinking: 'adaptive-always', displayUpdates: true },
  {
    prefix: 'claude-mythos-5',
    ...CURRENT,
    ...UNBOUND_SYSTEM,
    thinking: 'adaptive-always',
    displayUpdates: true,
  },
  {
    prefix: 'claude-opus-5-5',
    fallback: 'server',
    ...CURRENT,
    ...BOUND,
    thinking: 'adaptive-always',
    displayUpdates: true,
  },
  {
    prefix: 'claude-opus-5',
    fallback: 'server',
    ...CURRENT,
    ...UNBOUND_SYSTEM,
    thinking: 'adaptive-optional',
    displayUpdates: false,
  },
  {
    prefix: 'claude-sonnet-5-5',
    fallback: 'server',
    ...CURRENT,
    ...BOUND,
    thinking: 'adaptive',
    displayUpdates: true,
  },
  { prefix: 'claude-sonnet-5', ...CURRENT, ...NEITHER, thinking: 'adaptive-optional', displayUpdates: false },
  {
    prefix: 'claude-haiku-5-5',
    fallback: 'client',
    ...CURRENT,
    ...BOUND,
    thinking: 'adaptive',
    displayUpdates: false,
  },
  {
    prefix: 'claude-opus-4-8',
    ...CURRENT,
    ...UNBOUND_SYSTEM,
    thinking: 'adaptive-optional',
    displayUpdates: false,
  },
  { prefix: 'claude-opus-4-7', ...CURRENT, ...NEITHER, thinking: 'adaptive-optional', displayUpdates: false },
  {
    prefix: 'claude-opus-4-6',
    ...CURRENT,
    ...NEITHER,
    efforts: NO_XHIGH,
    thinking: 'adaptive-on-request',
    displayUpdates: false,
  },
  {
    prefix: 'claude-sonnet-4-6',
    ...CURRENT,
    ...NEITHER,
    efforts: NO_XHIGH,
    thinking: 'adaptive-on-request',
    displayUpdates: false,
  },
  // The 4.5 models: 200K (Sonnet 4.5 reaches 1M only with the context-1m beta,
  // which switchboard does not send, so 200K is the window its requests get).
  ...(['claude-opus-4-5', 'claude-sonnet-4-5', 'claude-haiku-4-5'] as const).map((prefix) => ({
    prefix,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    thinking: 'off-by-default' as const,
    displayUpdates: false,
    ...NEITHER,
    // Effort page: Opus 4.5 takes low, medium and high; Sonnet 4.5 and Haiku 4.5 reject effort.
    efforts: prefix === 'claude-opus-4-5' ? (['low', 'medium', 'high'] as const) : [],
    webTools: BASIC_WEB_TOOLS,
  })),
];

/** Every model the registry knows, by the id prefix it matches (for start-up checks and the price table's test). */
export const KNOWN_MODELS: readonly string[] = REGISTRY.map((e) => e.prefix);

/** Window assumed for a model the registry does not know (SWITCHBOARD_CONTEXT_WINDOW overrides). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Output limit assumed for a model the registry does not know (SWITCHBOARD_MAX_OUTPUT_TOKENS overrides). */
export const DEFAULT_MAX_OUTPUT = 8_192;

/** Settings that describe a model the registry does not know, or override what it knows. */
export interface ModelOverrides {
  contextWindow?: number;
  maxOutputTokens?: number;
}

const warned = new Set<string>();

/**
 * Looks a model up by prefix. An unknown model gets a 200K window and an
 * 8,192-token output limit unless `overrides` say otherwise, and one warning
 * per model id for the life of the process (not one per turn).
 *
 * @example
 * getModelInfo('claude-sonnet-5-5').contextWindow; // 1000000
 */
export function getModelInfo(model: string, overrides: ModelOverrides = {}, logger?: Logger): ModelInfo {
  const entry = REGISTRY.find((e) => model.startsWith(e.prefix));
  if (entry) {
    const { prefix, ...rest } = entry;
    return {
      id: prefix,
      known: true,
      effort: rest.efforts.length > 0,
      ...rest,
      fallback: rest.fallback ?? 'none',
      webTools: rest.webTools ?? CURRENT_WEB_TOOLS,
      ...definedOnly(overrides),
    };
  }
  if (!warned.has(model) && overrides.contextWindow === undefined) {
    warned.add(model);
    logger?.warn(
      { model, assumedContextWindow: DEFAULT_CONTEXT_WINDOW },
      `Unknown model "${model}": assuming a ${DEFAULT_CONTEXT_WINDOW}-token context window; set SWITCHBOARD_CONTEXT_WINDOW and SWITCHBOARD_MAX_OUTPUT_TOKENS to describe it`,
    );
  }
  return {
    id: model,
    known: false,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    maxOutputTokens: DEFAULT_MAX_OUTPUT,
    // An unknown model gets no thinking or effort settings: the API's defaults apply.
    thinking: 'off-by-default',
    displayUpdates: false,
    effort: false,
    efforts: [],
    preservedThinking: false,
    systemMessages: false,
    fallback: 'none',
    // Not knowing the model, offering a server tool could fail every request with a 400.
    webTools: {},
    ...definedOnly(overrides),
  };
}

function definedOnly(overrides: ModelOverrides): ModelOverrides {
  return {
    ...(overrides.contextWindow === undefined ? {} : { contextWindow: overrides.contextWindow }),
    ...(overrides.maxOutputTokens === undefined ? {} : { maxOutputTokens: overrides.maxOutputTokens }),
  };
}
