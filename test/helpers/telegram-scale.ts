/**
 * Telegram's rules divided by one factor on both sides: the fake Bot API
 * enforces its flood limits `/ factor` and the adapter declares its paces
 * `/ factor`, so a test keeps Telegram's rules (the same ratios) and runs
 * `factor` times faster. For tests that assert what happens to messages, not
 * the pace itself; the defaults on both sides stay Telegram's numbers.
 */
import { DEFAULT_PACES, type TelegramPaces } from '../../adapters/telegram/index.js';
import type { FakeTelegramOptions } from '../fakes/telegram/index.js';

/** The fake's limits and the adapter's paces, scaled down by `factor`. */
export function scaledTelegram(factor: number): {
  limits: NonNullable<FakeTelegramOptions['limits']>;
  paces: TelegramPaces;
} {
  const f = factor;
  return {
    limits: {
      private: { count: 3, windowMs: 1000 / f },
      perMessage: { count: 1, windowMs: 1000 / f },
      group: { count: 20, windowMs: 60_000 / f },
      global: { count: 30, windowMs: 1000 / f },
      // Whole seconds on the wire: the shortest wait Telegram can name.
      retryAfter: 1,
    },
    paces: {
      privateEditIntervalMs: DEFAULT_PACES.privateEditIntervalMs / f,
      groupEditIntervalMs: DEFAULT_PACES.groupEditIntervalMs / f,
      groupBudget: {
        count: DEFAULT_PACES.groupBudget.count,
        windowMs: DEFAULT_PACES.groupBudget.windowMs / f,
      },
      globalBudget: {
        count: DEFAULT_PACES.globalBudget.count,
        windowMs: DEFAULT_PACES.globalBudget.windowMs / f,
      },
      typingIntervalMs: DEFAULT_PACES.typingIntervalMs / f,
      draftMaxMs: DEFAULT_PACES.draftMaxMs / f,
    },
  };
}
