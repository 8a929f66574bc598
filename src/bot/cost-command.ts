/**
 * `/cost`: what this chat's session has used and what it cost at list
 * prices; for an admin, the whole bot's totals per day as well (from every
 * session record in the store, so sessions no longer in memory count too).
 * The same one-line summary is the `/status` cost line.
 */
import { formatUsd, ledgerCost, type PriceTable } from '../provider/pricing.js';
import {
  cacheHitRate,
  emptyLedger,
  ledgerTotals,
  mergeLedger,
  promptTokens,
} from '../session/usage-ledger.js';
import type { UsageLedger } from '../vocabulary.js';
import type { CommandContext } from './command-context.js';

/** Days listed in an admin's `/cost`, newest first. */
const DAYS_SHOWN = 7;

const count = (n: number) => n.toLocaleString('en-US');

/**
 * One line: tokens in (and how much of them the cache served), tokens out,
 * requests, and the cost; `day` limits it to one UTC day.
 */
export function describeUsage(ledger: UsageLedger, prices: PriceTable, day?: string): string {
  const t = ledgerTotals(ledger, day);
  if (t.calls === 0) return 'nothing yet';
  const cost = ledgerCost(ledger, prices, day);
  const unpriced = cost.unpriced.length > 0 ? ` (no price for ${cost.unpriced.join(', ')})` : '';
  return (
    `${count(promptTokens(t))} tokens in (${Math.round(cacheHitRate(t) * 100)}% from the cache), ` +
    `${count(t.outputTokens)} out, ${count(t.calls)} requests` +
    `${t.webSearches ? `, ${count(t.webSearches)} web ${t.webSearches === 1 ? 'search' : 'searches'}` : ''}` +
    `: ${formatUsd(cost.usd)}${unpriced}`
  );
}

/** Runs `/cost`. */
export async function runCost(ctx: CommandContext): Promise<void> {
  const session = await ctx.registry.existing(ctx.chat);
  const lines = [
    session
      ? `This session: ${describeUsage(session.getUsage(), ctx.prices)}`
      : 'No session yet in this chat: send a message to start one.',
  ];
  if (ctx.access.isAdmin(ctx.user)) lines.push(...(await botTotals(ctx)));
  lines.push('List prices; a discount or another price list is set with SWITCHBOARD_PRICES.');
  await ctx.answer(lines.join('\n'));
}

/** The bot's totals per UTC day over every readable session record. */
async function botTotals(ctx: CommandContext): Promise<string[]> {
  const all = emptyLedger();
  let unreadable = 0;
  for (const { outcome } of await ctx.sessionStore.list()) {
    if (outcome.status !== 'valid') {
      if (outcome.status !== 'missing') unreadable++;
      continue;
    }
    if (outcome.record.usage) mergeLedger(all, outcome.record.usage);
  }
  const days = Object.keys(all.days).sort().reverse().slice(0, DAYS_SHOWN);
  const lines = [days.length === 0 ? 'Bot, per day (UTC): nothing yet' : 'Bot, per day (UTC):'];
  for (const day of days) lines.push(`${day}: ${describeUsage(all, ctx.prices, day)}`);
  if (days.length > 0) lines.push(`All days: ${describeUsage(all, ctx.prices)}`);
  if (unreadable > 0) lines.push(`(${unreadable} session records could not be read and are not counted.)`);
  return lines;
}
