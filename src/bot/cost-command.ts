/**
 * `/cost`: what this chat's session has used and what it cost at list
 * prices; for an admin, the whole bot's totals per day as well (from every
 * session record in the store, so sessions no longer in memory count too).
 * The same one-line summary is the `/status` cost line.
 */
import { formatUsd, ledgerCost, type PriceTable } from '../session/index.js';
import {
  cacheHitRate,
  emptyLedger,
  ledgerTotals,
  mergeLedger,
  promptTokens,
  transcriptionTotals,
} from '../session/usage-ledger.js';
import type { UsageLedger } from '../vocabulary.js';
import type { CommandContext } from './command-context.js';
import { plural } from './text.js';

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
    `${count(t.outputTokens)} out, ${plural(t.calls, 'request')}` +
    `${t.webSearches ? `, ${plural(t.webSearches, 'web search', 'web searches')}` : ''}` +
    `: ${formatUsd(cost.usd)}${unpriced}`
  );
}

/**
 * Voice notes transcribed (in `ledger`, or on `day`): how many, their
 * minutes, and their cost at `pricePerMinute` when the operator gave one;
 * undefined when there were none.
 */
export function describeVoice(
  ledger: UsageLedger,
  pricePerMinute?: number,
  day?: string,
): string | undefined {
  const t = transcriptionTotals(ledger, day);
  if (t.notes === 0) return undefined;
  const minutes = t.seconds / 60;
  const length = `${minutes < 10 ? minutes.toFixed(1) : Math.round(minutes)} min`;
  const priced = pricePerMinute === undefined ? '' : `: ${formatUsd(minutes * pricePerMinute)}`;
  return `${count(t.notes)} voice ${t.notes === 1 ? 'note' : 'notes'} transcribed (${length})${priced}`;
}

/** The usage line, with the voice notes after it when there were any. */
function describeAll(ledger: UsageLedger, ctx: CommandContext, day?: string): string {
  const voice = describeVoice(ledger, ctx.voice?.pricePerMinute, day);
  const tokens = describeUsage(ledger, ctx.sessions.prices, day);
  return voice ? `${tokens}; ${voice}` : tokens;
}

/** Runs `/cost`. */
export async function runCost(ctx: CommandContext): Promise<void> {
  const session = await ctx.registry.existing(ctx.chat);
  const lines = [
    session
      ? `This session: ${describeAll(session.getUsage(), ctx)}`
      : 'No session yet in this chat: send a message to start one.',
  ];
  if (ctx.access.isAdmin(ctx.user)) lines.push(...(await botTotals(ctx)));
  // Only an operator can change the price list, so only an operator is told how.
  lines.push(
    ctx.access.isOperator(ctx.user)
      ? 'List prices; a discount or another price list is set with SWITCHBOARD_PRICES.'
      : 'At list prices.',
  );
  await ctx.answer(lines.join('\n'));
}

/** The bot's totals per UTC day over every readable session record. */
async function botTotals(ctx: CommandContext): Promise<string[]> {
  const all = emptyLedger();
  let unreadable = 0;
  for (const { outcome } of await ctx.sessions.sessionStore.list()) {
    if (outcome.status !== 'valid') {
      if (outcome.status !== 'missing') unreadable++;
      continue;
    }
    if (outcome.record.usage) mergeLedger(all, outcome.record.usage);
  }
  const days = [...new Set([...Object.keys(all.days), ...Object.keys(all.transcription ?? {})])]
    .sort()
    .reverse()
    .slice(0, DAYS_SHOWN);
  const lines = [days.length === 0 ? 'Bot, per day (UTC): nothing yet' : 'Bot, per day (UTC):'];
  for (const day of days) lines.push(`${day}: ${describeAll(all, ctx, day)}`);
  if (days.length > 0) lines.push(`All days: ${describeAll(all, ctx)}`);
  if (unreadable > 0) {
    const records = plural(unreadable, 'session record');
    lines.push(`(${records} could not be read and ${unreadable === 1 ? 'is' : 'are'} not counted.)`);
  }
  return lines;
}
