/**
 * `/budget`: each cap that applies to the person asking in this chat, what
 * is spent against it and when it resets; `/budget chat <amount>` (admins)
 * stores this chat's own daily cap, `/budget chat off` goes back to the
 * configured one.
 */
import { type CapStatus, dollars } from './budgets.js';
import type { CommandContext } from './command-context.js';

const NAMES: Record<CapStatus['kind'], string> = {
  'user-day': 'Your daily budget',
  'chat-day': "This chat's daily budget",
  month: "The bot's monthly budget",
};

const USAGE = 'Usage: /budget, or (admins) /budget chat <dollars> or /budget chat off';

/** Runs `/budget [chat <amount>|chat off]`. */
export async function runBudget(ctx: CommandContext, args: string): Promise<void> {
  const budgets = ctx.budgets;
  if (!budgets) {
    await ctx.answer('Budgets are not kept by this bot.');
    return;
  }
  if (args) {
    const match = /^chat\s+(\S+)$/i.exec(args);
    const value = match?.[1]?.replace(/^\$/, '').toLowerCase();
    const amount = value === 'off' ? undefined : Number(value);
    if (!match || (value !== 'off' && !(/^\d+(\.\d{1,2})?$/.test(value ?? '') && (amount ?? 0) > 0))) {
      await ctx.answer(`${USAGE}. The amount is in US dollars above 0, e.g. 20 or 12.50.`);
      return;
    }
    if (!ctx.access.isAdmin(ctx.user)) {
      await ctx.answer("Only an admin can set this chat's budget.");
      return;
    }
    await budgets.setChatCap(ctx.chat, amount);
    ctx.logger.info({ chat: ctx.chat, cap: amount ?? 'default' }, 'chat budget set');
    await ctx.answer(
      amount === undefined
        ? "This chat's daily budget is back to the bot's setting."
        : `This chat's daily budget is now ${dollars(amount)}.`,
    );
    return;
  }
  const lines = (await budgets.status(ctx.chat, ctx.user)).map(describe);
  await ctx.answer(['Budgets, at the configured prices:', ...lines].join('\n'));
}

function describe(c: CapStatus): string {
  const resets = `resets ${new Date(c.resetsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (c.cap === undefined) return `${NAMES[c.kind]}: no cap (${dollars(c.spent)} spent, ${resets})`;
  const extra = c.extra > 0 ? ` (${dollars(c.cap)} + ${dollars(c.extra)} allowed by an admin)` : '';
  return `${NAMES[c.kind]}: ${dollars(c.spent)} spent of ${dollars(c.cap + c.extra)}${extra}, ${resets}`;
}
