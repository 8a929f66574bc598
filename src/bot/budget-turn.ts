/**
 * Budgets around one chat turn: a message that arrives with a cap reached
 * runs nothing and is answered; a running turn records what its session's
 * usage ledger says it spent before every model request, and when a cap is
 * reached it pauses there (never mid-stream) with the `Allow $X more`
 * button, going on with its tool results kept when an admin extends the
 * cap, or ending with a notice when nobody does in time. The 80% lines are
 * said when the turn ends.
 */
import type { Logger } from '../logger.js';
import type { InteractiveSession } from '../session/index.js';
import { ledgerCost, type PriceTable } from '../session/index.js';
import type { Budgets } from './budgets.js';
import type { Requester } from './queued-message.js';
import type { Outbox } from './stream/types.js';
import { say } from './text.js';

/**
 * Answers a message whose sender, chat or bot has reached a cap, so that
 * nothing runs for it; false when it may run.
 */
export async function refuseOverBudget(
  budgets: Budgets,
  outbox: Outbox,
  chat: string,
  message: { messageId: string; requester: Requester },
): Promise<boolean> {
  const cap = await budgets.reached(chat, message.requester.key);
  if (!cap) return false;
  const notice = await budgets.notice(chat, cap, false);
  await outbox.send(chat, notice.text, { buttons: notice.buttons, replyTo: message.messageId });
  return true;
}

/** What {@link BudgetTurn} works with. */
export interface BudgetTurnInput {
  budgets: Budgets;
  chat: string;
  requester: Requester;
  session: InteractiveSession;
  prices: PriceTable;
  outbox: Outbox;
  /** How long a paused turn waits for an extension (the approval timeout). */
  waitMs: number;
  logger: Logger;
  /** Makes the reply's text so far permanent, so the pause notice comes after it. */
  checkpoint: () => Promise<void>;
}

/** One turn's spend, recorded as it goes, and its pauses on a reached cap. */
export class BudgetTurn {
  readonly #in: BudgetTurnInput;
  /** The session's ledger cost already recorded, in dollars. */
  #recorded: number;

  constructor(input: BudgetTurnInput) {
    this.#in = input;
    this.#recorded = this.#ledgerUsd();
  }

  /** Before each model request: record, then hold while a cap is reached; a notice ends the turn. */
  readonly gate = async (signal: AbortSignal): Promise<string | undefined> => {
    const { budgets, chat, requester, outbox } = this.#in;
    await this.#record();
    for (;;) {
      const cap = await budgets.reached(chat, requester.key);
      if (!cap || signal.aborted) return undefined;
      await this.#in.checkpoint().catch(() => undefined);
      const notice = await budgets.notice(chat, cap, true);
      outbox.stopTyping(chat);
      await outbox.send(chat, notice.text, { buttons: notice.buttons });
      this.#in.logger.info({ chat, cap: cap.kind, spent: cap.spent }, 'turn paused on a budget');
      const extended =
        notice.offerId !== undefined &&
        (await budgets.waitForExtension(cap, notice.offerId, this.#in.waitMs, signal));
      if (!extended) return say.budgetStopped;
      outbox.startTyping(chat);
    }
  };

  /** When the turn ends: records the rest and returns the 80% lines now due. */
  async finish(): Promise<string[]> {
    await this.#record();
    return this.#in.budgets.warnings(this.#in.chat, this.#in.requester.key);
  }

  async #record(): Promise<void> {
    const now = this.#ledgerUsd();
    await this.#in.budgets.record(this.#in.chat, this.#in.requester.key, now - this.#recorded);
    this.#recorded = now;
  }

  #ledgerUsd(): number {
    return ledgerCost(this.#in.session.getUsage(), this.#in.prices).usd;
  }
}
