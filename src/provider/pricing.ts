/**
 * List prices per model, and what a usage ledger costs at them. The table is
 * Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing)
 * as of 2026-12-01, in US dollars per million tokens; a deployment with other
 * prices (a discount, a gateway's markup, a model the table does not know)
 * overrides it with `SWITCHBOARD_PRICES`.
 */
import { SwitchboardError } from '../errors.js';
import type { UsageLedger, UsageTotals } from '../vocabulary.js';
import { WEB_SEARCH_USD_PER_1000 } from './web-tools.js';

/** One model's prices, US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Writing the 5-minute cache. */
  cacheWrite5m: number;
  /** Writing the 1-hour cache. */
  cacheWrite1h: number;
  /** Reading the cache (hits and refreshes). */
  cacheRead: number;
  /** Prices for a request whose prompt exceeds {@link LONG_PROMPT_TOKENS}, for models billed that way. */
  longPrompt?: Omit<ModelPrice, 'longPrompt'>;
}

/** Prices by model id; an id matches every model id it is a prefix of (dated ids). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Prompt length (input + cache reads + cache writes) past which Claude Haiku
 * 5.5 bills a request at its long-prompt prices, on every token of it.
 */
export const LONG_PROMPT_TOKENS = 100_000;

const flat = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
  cacheRead,
});

/**
 * The built-in table. Cache writes are 1.25 x input (5 minutes) and 2 x input
 * (1 hour) on every model; reads are 0.1 x input except Opus 5.5 and Sonnet
 * 5.5 (0.05 x since 2026-10-07), Fable 5.1 / Mythos 5.1 (0.025 x) and Fable
 * 5.2 / Mythos 5.2 (0.025 x). Each row names where its figures come from;
 * "pricing page" is platform.claude.com/docs/en/about-claude/pricing.
 */
export const DEFAULT_PRICES: PriceTable = {
  // Pricing page and the Claude Fable 5.2 announcement (2026-11-09): $8 / $40, cache hits $0.20;
  // Mythos shares its Fable's specifications and pricing (Fable 5 overview page).
  'claude-fable-5-2': flat(8, 40, 0.2),
  'claude-mythos-5-2': flat(8, 40, 0.2),
  // Pricing page; Fable 5.1 overview: $10 / $50, cache hits $0.25.
  'claude-fable-5-1': flat(10, 50, 0.25),
  'claude-mythos-5-1': flat(10, 50, 0.25),
  // Pricing page below: the rows as the pricing page lists them (2026-12-01).
  'claude-fable-5': flat(10, 50, 1),
  'claude-mythos-5': flat(10, 50, 1),
  'claude-opus-5-5': flat(4, 20, 0.2),
  'claude-opus-5': flat(5, 25, 0.5),
  'claude-opus-4-8': flat(5, 25, 0.5),
  'claude-opus-4-7': flat(5, 25, 0.5),
  'claude-opus-4-6': flat(5, 25, 0.5),
  'claude-opus-4-5': flat(5, 25, 0.5),
  'claude-opus-4-1': flat(15, 75, 1.5),
  'claude-opus-4': flat(15, 75, 1.5),
  'claude-sonnet-5-5': flat(2, 10, 0.1),
  'claude-sonnet-5': flat(2, 10, 0.2),
  'claude-sonnet-4-6': flat(3, 15, 0.3),
  'claude-sonnet-4-5': flat(3, 15, 0.3),
  'claude-sonnet-4': flat(3, 15, 0.3),
  'claude-haiku-5-5': { ...flat(0.1, 0.5, 0.01), longPrompt: flat(0.5, 2.5, 0.05) },
  'claude-haiku-4-5': flat(1, 5, 0.1),
};

/** The price of `model`: the longest table id it starts with, or undefined when none matches. */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  let best: string | undefined;
  for (const id of Object.keys(table)) {
    if (model.startsWith(id) && (best === undefined || id.length > best.length)) best = id;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * US dollars for `totals` at `price` (the long-prompt prices are the caller's
 * choice), web searches included at the pricing page's rate per 1,000.
 */
export function costOf(totals: UsageTotals, price: Omit<ModelPrice, 'longPrompt'>): number {
  return (
    (totals.inputTokens * price.input +
      totals.cacheWrite5mTokens * price.cacheWrite5m +
      totals.cacheWrite1hTokens * price.cacheWrite1h +
      totals.cacheReadTokens * price.cacheRead +
      totals.outputTokens * price.output) /
      1_000_000 +
    ((totals.webSearches ?? 0) * WEB_SEARCH_USD_PER_1000) / 1000
  );
}

/** What a ledger (or a part of it) costs, and the models no price was found for. */
export interface LedgerCost {
  usd: number;
  /** Models used but missing from the table: their tokens are counted, not priced. */
  unpriced: string[];
}

/** Prices every day and model of `ledger` (or only `day`, `YYYY-MM-DD`). */
export function ledgerCost(
  ledger: UsageLedger,
  table: PriceTable = DEFAULT_PRICES,
  day?: string,
): LedgerCost {
  let usd = 0;
  const unpriced = new Set<string>();
  for (const [date, models] of Object.entries(ledger.days)) {
    if (day !== undefined && date !== day) continue;
    for (const [model, totals] of Object.entries(models)) {
      const price = priceFor(model, table);
      if (!price) {
        unpriced.add(model);
        continue;
      }
      const long = totals.long;
      if (long) {
        usd += costOf(subtract(totals, long), price) + costOf(long, price.longPrompt ?? price);
      } else {
        usd += costOf(totals, price);
      }
    }
  }
  return { usd, unpriced: [...unpriced].sort() };
}

function subtract(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    calls: a.calls - b.calls,
    inputTokens: a.inputTokens - b.inputTokens,
    cacheWrite5mTokens: a.cacheWrite5mTokens - b.cacheWrite5mTokens,
    cacheWrite1hTokens: a.cacheWrite1hTokens - b.cacheWrite1hTokens,
    cacheReadTokens: a.cacheReadTokens - b.cacheReadTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    ...(a.webSearches ? { webSearches: a.webSearches - (b.webSearches ?? 0) } : {}),
  };
}

const PRICE_ENTRY = /^([A-Za-z0-9._:@/[\]-]{1,100})=([^;]+)$/;

/**
 * Reads `SWITCHBOARD_PRICES`: `model=input,output,write5m,write1h,read;...`
 * in US dollars per million tokens. Each entry replaces (or adds) that model
 * id in the table and matches dated ids by prefix like the built-in ones.
 *
 * @throws SwitchboardError `CONFIG_INVALID` naming the entry that is wrong.
 * @example parsePriceOverrides('claude-sonnet-5-5=2,10,2.5,4,0.1;my-proxy-model=1,5,1.25,2,0.1')
 */
export function parsePriceOverrides(text: string): Record<string, ModelPrice> {
  const out: Record<string, ModelPrice> = {};
  for (const raw of text.split(';')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = PRICE_ENTRY.exec(entry);
    const numbers = match?.[2]?.split(',').map((n) => n.trim());
    const values = numbers?.map(Number);
    if (
      !match?.[1] ||
      !numbers ||
      !values ||
      values.length !== 5 ||
      numbers.some((n) => !/^\d+(\.\d+)?$/.test(n))
    ) {
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `SWITCHBOARD_PRICES: "${entry.slice(0, 80)}" is not model=input,output,write5m,write1h,read ` +
          '(five numbers, US dollars per million tokens), e.g. claude-sonnet-5-5=2,10,2.5,4,0.1',
        { detail: { variable: 'SWITCHBOARD_PRICES' } },
      );
    }
    const [input, output, cacheWrite5m, cacheWrite1h, cacheRead] = values as [
      number,
      number,
      number,
      number,
      number,
    ];
    out[match[1]] = { input, output, cacheWrite5m, cacheWrite1h, cacheRead };
  }
  return out;
}

/** The built-in table with `overrides` laid over it. */
export function priceTable(overrides: Record<string, ModelPrice> = {}): PriceTable {
  return { ...DEFAULT_PRICES, ...overrides };
}

/** `$0.0123` style: cents for sums above a dollar, four decimals under it. */
export function formatUsd(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}
