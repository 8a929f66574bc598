/**
 * Prompt caching: where the cache breakpoints go in a Messages API request,
 * and which cache lifetime a chat gets.
 *
 * The API caches the prompt prefix (tools, then system, then messages) up to
 * each block marked with `cache_control`, at most 4 marks per request; a later
 * request that starts with the same bytes reads it back at a tenth of the
 * input price or less, looking back up to 20 blocks from each mark for an
 * entry (platform.claude.com/docs/en/build-with-claude/prompt-caching). So we
 * mark, in prefix order:
 *
 * 1. the last tool definition (the tools never change within a session);
 * 2. the system prompt;
 * 3. the message that ended the previous request (two messages back), so the
 *    entry the previous call wrote is hit exactly, however many blocks a wide
 *    round of parallel tool calls added since;
 * 4. the newest message, so the next call (the next round of a tool loop, or
 *    the next turn) reads everything this one sent.
 *
 * Every mark of a request carries the same lifetime (the API wants 1-hour
 * marks before 5-minute ones; one lifetime per request keeps that trivially).
 */
import type Anthropic from '@anthropic-ai/sdk';

/** How long a cache entry lives after its last use. */
export type CacheLifetime = '5m' | '1h';

/** The `SWITCHBOARD_CACHE` setting: `auto` picks a lifetime from how the chat is used. */
export type CacheSetting = 'auto' | CacheLifetime | 'off';

/** Every accepted {@link CacheSetting}. */
export const CACHE_SETTINGS: readonly CacheSetting[] = ['auto', '5m', '1h', 'off'];

/**
 * A chat whose recent gaps between prompts are longer than this gets the
 * 1-hour lifetime under `auto`: a 5-minute entry would be gone by the next
 * message, so every turn would write the whole conversation again.
 */
export const LONG_GAP_MS = 4 * 60_000;

/**
 * ...but not when the gaps are longer than the 1-hour lifetime itself: then
 * nothing survives to the next message either way, and the 1-hour write
 * (2 x input, against 1.25 x) could never pay back.
 */
export const LONGEST_USEFUL_GAP_MS = 55 * 60_000;

/** How many of the latest gaps between prompts `auto` looks at. */
const RECENT_GAPS = 3;

/**
 * The lifetime for the next request of a chat, from `setting` and the times
 * (ms) of the chat's prompts, oldest first, the prompt being answered last.
 * `auto`: the median of the latest gaps decides; a chat with no gap yet (its
 * first message) starts with 5 minutes, which covers its tool loop.
 */
export function chooseCacheLifetime(
  setting: CacheSetting,
  promptTimes: readonly number[],
): CacheLifetime | 'off' {
  if (setting !== 'auto') return setting;
  const recent = promptTimes.slice(-(RECENT_GAPS + 1));
  const gaps: number[] = [];
  for (let i = 1; i < recent.length; i++) gaps.push((recent[i] as number) - (recent[i - 1] as number));
  if (gaps.length === 0) return '5m';
  gaps.sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)] as number;
  return median > LONG_GAP_MS && median <= LONGEST_USEFUL_GAP_MS ? '1h' : '5m';
}

/** Block types the API refuses a `cache_control` on (they are cached as part of the prefix all the same). */
const UNMARKABLE = new Set(['thinking', 'redacted_thinking']);

type Params = Anthropic.MessageCreateParamsStreaming | Anthropic.MessageCreateParamsNonStreaming;

/**
 * `params` with cache breakpoints placed as this file's comment describes,
 * all of `lifetime`. Returns new objects for what it marks and never changes
 * `params`, so the bytes of the unmarked prefix stay exactly as converted.
 */
export function withCacheBreakpoints<P extends Params>(params: P, lifetime: CacheLifetime): P {
  const mark: Anthropic.CacheControlEphemeral =
    lifetime === '5m' ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: '1h' };
  const out: P = { ...params };
  const tools = params.tools;
  if (tools && tools.length > 0) {
    const last = tools[tools.length - 1] as Anthropic.ToolUnion;
    out.tools = [...tools.slice(0, -1), { ...last, cache_control: mark } as Anthropic.ToolUnion];
  }
  if (typeof params.system === 'string' && params.system.length > 0) {
    out.system = [{ type: 'text', text: params.system, cache_control: mark }];
  } else if (Array.isArray(params.system) && params.system.length > 0) {
    const system = params.system;
    out.system = [
      ...system.slice(0, -1),
      { ...(system[system.length - 1] as Anthropic.TextBlockParam), cache_control: mark },
    ];
  }
  const messages = [...params.messages];
  for (const index of [messages.length - 3, messages.length - 1]) {
    const message = messages[index];
    if (!message) continue;
    const marked = markLastBlock(message, mark);
    if (marked) messages[index] = marked;
  }
  out.messages = messages;
  return out;
}

function markLastBlock(
  message: Anthropic.MessageParam,
  mark: Anthropic.CacheControlEphemeral,
): Anthropic.MessageParam | undefined {
  if (typeof message.content === 'string') {
    if (message.content.length === 0) return undefined;
    return {
      ...message,
      content: [{ type: 'text', text: message.content, cache_control: mark }],
    } as Anthropic.MessageParam;
  }
  const blocks = message.content as Array<{ type: string }>;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i] as { type: string };
    if (UNMARKABLE.has(block.type)) continue;
    const content = [...blocks];
    content[i] = { ...block, cache_control: mark } as { type: string };
    return { ...message, content } as Anthropic.MessageParam;
  }
  return undefined;
}
