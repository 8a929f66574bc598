/**
 * Teams' paces divided by one factor on both sides: the fake Bot Connector
 * enforces its rate windows and stream rules `/ factor` and the adapter
 * declares its paces `/ factor`, so an end-to-end test keeps Teams' rules
 * (the same ratios) and waits `factor` times less for an edit or a stream
 * update. For tests that assert what happens to messages, not the pace
 * itself; the defaults on both sides stay Teams' numbers.
 *
 * Not scaled: the invoke deadline and the adapter's acknowledgement before
 * it (a race against wall time that must keep its full second of margin on
 * a loaded machine; nothing waits for it when the bot answers in time), the
 * token lifetime (checked on wall time), and Retry-After (whole seconds on
 * the wire, the shortest wait Teams can name).
 */
import { TEAMS_DEFAULT_PACES as PACES } from '../../../adapters/teams/capabilities.js';
import type { TeamsPaces } from '../../../adapters/teams/index.js';
import { DEFAULT_LIMITS, type FakeTeamsLimits } from '../../fakes/teams/index.js';

/** The default factor of the Teams end-to-end tests. */
export const TEAMS_SCALE = 10;

/** The fake's limits and the adapter's paces, scaled down by `factor`. */
export function scaledTeams(factor: number): {
  limits: Partial<FakeTeamsLimits>;
  paces: Partial<TeamsPaces>;
} {
  const f = factor;
  return {
    limits: {
      perThread: DEFAULT_LIMITS.perThread.map((w) => scaledWindow(w, f)),
      perApp: DEFAULT_LIMITS.perApp.map((w) => scaledWindow(w, f)),
      streamMinIntervalMs: DEFAULT_LIMITS.streamMinIntervalMs / f,
      streamMaxDurationMs: DEFAULT_LIMITS.streamMaxDurationMs / f,
    },
    paces: scaledPaces(f),
  };
}

/** A rate window with its time divided by `f`. */
const scaledWindow = <T extends { windowMs: number }>(w: T, f: number): T => ({
  ...w,
  windowMs: w.windowMs / f,
});

/**
 * Every time in the adapter's default paces divided by `f`: each `…Ms`
 * number and each budget's window (one or a list); counts and lengths stay.
 * Read off the defaults, so a pace added there is scaled too.
 */
function scaledPaces(f: number): Partial<TeamsPaces> {
  const scale = (key: string, value: unknown): unknown => {
    if (typeof value === 'number') return key.endsWith('Ms') ? value / f : value;
    if (Array.isArray(value)) return value.map((w: { windowMs: number }) => scaledWindow(w, f));
    if (value && typeof value === 'object' && 'windowMs' in value)
      return scaledWindow(value as { windowMs: number }, f);
    return value;
  };
  return Object.fromEntries(
    Object.entries(PACES).map(([key, value]) => [key, scale(key, value)]),
  ) as Partial<TeamsPaces>;
}
