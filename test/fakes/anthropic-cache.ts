/**
 * Prompt-cache accounting for the fake Messages API, by the documented rules
 * (platform.claude.com/docs/en/build-with-claude/prompt-caching):
 *
 * - The prompt is tools, then system, then messages. A block marked with
 *   `cache_control` (or the last block, with a top-level `cache_control`)
 *   is a breakpoint; at most 4 per request, else a 400.
 * - A breakpoint reads the longest cached prefix that ends at it or within
 *   the 20 blocks before it; the prefix must be byte-identical (the marks
 *   themselves are not part of it) and of the same model.
 * - Each breakpoint past the hit writes its prefix, unless the prefix is
 *   shorter than the model's minimum cacheable length (then nothing is
 *   written, silently).
 * - An entry lives 5 minutes (or 1 hour with `ttl: "1h"`) from its last use;
 *   a hit refreshes it. 1-hour marks must come before 5-minute ones.
 * - usage: `input_tokens` is what came after the last hit or write;
 *   `cache_read_input_tokens`, `cache_creation_input_tokens` and the
 *   `cache_creation` split by lifetime account for the rest.
 *
 * Tokens are estimated as characters / 4, like the rest of the fake.
 */
import { createHash } from 'node:crypto';

/** Cache usage of one request, as the API reports it. */
export interface CacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

const LIFETIME_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
type Ttl = keyof typeof LIFETIME_MS;

/** The API looks back this many blocks from a breakpoint for an entry. */
const LOOKBACK_BLOCKS = 20;
const MAX_BREAKPOINTS = 4;

/**
 * Minimum cacheable prompt length per model (prefix match, longest first).
 * Models the page does not list for us get 1,024, the most common value.
 */
const MINIMUM_TOKENS: ReadonlyArray<[string, number]> = [
  ['claude-opus-4-8', 1024],
  ['claude-opus-4-7', 2048],
  ['claude-opus-4-6', 4096],
  ['claude-opus-4-5', 4096],
  ['claude-haiku-4-5', 4096],
  ['claude-opus-5-', 1024],
  ['claude-opus-5', 512],
  ['claude-fable-5', 512],
  ['claude-mythos-5', 512],
];
const DEFAULT_MINIMUM = 1024;

function minimumFor(model: string): number {
  let best: [string, number] | undefined;
  for (const entry of MINIMUM_TOKENS) {
    if (model.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best ? best[1] : DEFAULT_MINIMUM;
}

interface Block {
  /** Hash of the prompt up to and including this block. */
  hash: string;
  /** Tokens of the prompt up to and including this block. */
  tokens: number;
  /** Set when the block is a breakpoint. */
  ttl?: Ttl;
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies.
type Json = any;

/** The cache of one fake server, on the clock it is given. */
export class FakePromptCache {
  readonly #now: () => number;
  readonly #entries = new Map<string, { expiresAt: number; ttl: Ttl }>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** Entries alive now. */
  get size(): number {
    const now = this.#now();
    return [...this.#entries.values()].filter((e) => e.expiresAt > now).length;
  }

  /** Accounts one request: its cache usage, or the 400 message the API would answer. */
  account(body: Json): CacheUsage | { error: string } {
    const parsed = this.#blocks(body);
    if ('error' in parsed) return parsed;
    const blocks = parsed;
    const total = blocks.at(-1)?.tokens ?? 0;
    const now = this.#now();
    const breakpoints = blocks.flatMap((b, i) => (b.ttl ? [i] : []));
    let hit = -1;
    for (const bp of breakpoints) {
      for (let j = bp; j >= 0 && j > bp - LOOKBACK_BLOCKS; j--) {
        const entry = this.#entries.get((blocks[j] as Block).hash);
        if (entry && entry.expiresAt > now && j > hit) hit = j;
      }
    }
    if (hit >= 0) {
      const entry = this.#entries.get((blocks[hit] as Block).hash);
      if (entry) entry.expiresAt = now + LIFETIME_MS[entry.ttl];
    }
    const read = hit >= 0 ? (blocks[hit] as Block).tokens : 0;
    const written = { '5m': 0, '1h': 0 };
    let covered = read;
    const minimum = minimumFor(String(body.model));
    for (const bp of breakpoints) {
      const block = blocks[bp] as Block;
      if (bp <= hit || !block.ttl || block.tokens < minimum) continue;
      this.#entries.set(block.hash, { expiresAt: now + LIFETIME_MS[block.ttl], ttl: block.ttl });
      written[block.ttl] += block.tokens - covered;
      covered = block.tokens;
    }
    const creation = written['5m'] + written['1h'];
    return {
      input_tokens: Math.max(1, total - read - creation),
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
      cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
    };
  }

  /** The prompt as a chain of blocks, with the breakpoints checked. */
  #blocks(body: Json): Block[] | { error: string } {
    const chunks: Array<{ text: string; mark: Json }> = [];
    const add = (label: string, block: Json) => {
      const { cache_control: mark, ...rest } = block ?? {};
      chunks.push({ text: `${label}${JSON.stringify(rest)}`, mark });
    };
    for (const tool of Array.isArray(body.tools) ? body.tools : []) add('tool:', tool);
    if (typeof body.system === 'string') add('system:', { type: 'text', text: body.system });
    else for (const block of Array.isArray(body.system) ? body.system : []) add('system:', block);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    messages.forEach((m: Json, i: number) => {
      const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      for (const block of Array.isArray(content) ? content : []) add(`${i}:${m.role}:`, block);
    });
    if (body.cache_control && chunks.length > 0) {
      const last = chunks[chunks.length - 1] as { mark: Json };
      last.mark ??= body.cache_control;
    }
    const marks = chunks.filter((c) => c.mark);
    if (marks.length > MAX_BREAKPOINTS)
      return {
        error: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks.length}.`,
      };
    let seenShort = false;
    for (const { mark } of marks) {
      if (mark.type !== 'ephemeral') return { error: "cache_control.type: Input should be 'ephemeral'" };
      const ttl = mark.ttl ?? '5m';
      if (ttl !== '5m' && ttl !== '1h') return { error: "cache_control.ttl: Input should be '5m' or '1h'" };
      if (ttl === '1h' && seenShort)
        return {
          error:
            'A cache_control block with ttl="1h" cannot come after one with ttl="5m": put the longer-lived breakpoints first.',
        };
      if (ttl === '5m') seenShort = true;
    }
    let hash = createHash('sha256').update(String(body.model)).digest('hex');
    let tokens = 0;
    return chunks.map(({ text, mark }) => {
      hash = createHash('sha256').update(hash).update(text).digest('hex');
      tokens += Math.ceil(text.length / 4);
      return { hash, tokens, ...(mark ? { ttl: (mark.ttl ?? '5m') as Ttl } : {}) };
    });
  }
}
