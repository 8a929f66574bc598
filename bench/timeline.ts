/**
 * Plays a reply profile on a VirtualClock into a streaming strategy (the
 * outbox, or a naive baseline) and measures what the simulated platform saw.
 */
import type { VirtualClock } from '../src/clock.js';
import type { RecordingAdapter } from '../test/fakes/recording-adapter.js';
import { allowedCalls, effectiveIntervalMs, type PlatformCase } from './platforms.js';
import type { ReplyProfile } from './profiles.js';
import { max, quantile, round } from './stats.js';
import { analyseVisibility, type TimedDelta } from './visibility.js';

/** How a reply is put on a chat: the events of a turn, in the order the model produces them. */
export interface Strategy {
  text(delta: string): void;
  toolStart(summary: string): void;
  toolEnd(summary: string): void;
  /** A permission prompt: posted, then answered after `waitMs` (edited to `outcome`). */
  approval(prompt: string, outcome: string, waitMs: number): void;
  /** The turn ended: deliver the final text; resolves when the strategy is done. */
  finish(): Promise<void>;
  /** Ids of messages that are not the reply (approval prompts). */
  readonly excluded: ReadonlySet<string>;
  /** Every status line it may have shown (to strip from the text). */
  readonly statusLines: readonly string[];
}

/** Figures of one strategy on one platform case and profile. */
export interface StreamingFigures {
  /** Calls that reached the platform (accepted or refused). */
  calls: number;
  accepted: number;
  /** Calls the declared pace allows over the same time. */
  allowed: number;
  /** Calls refused for breaking the declared pace (429). */
  violations: number;
  otherErrors: number;
  stalenessP95Ms: number;
  stalenessMaxMs: number;
  /** Deltas that never became visible before the end. */
  neverShown: number;
  firstVisibleMs: number;
  fidelity: boolean;
  fidelityNote: string;
  messages: number;
  /** ms from the first delta to the last accepted call. */
  durationMs: number;
}

/** Tool and approval texts used by every strategy. */
export const TOOL_START = (summary: string) => `⚙ ${summary}`;
export const TOOL_DONE = (summary: string) => `✓ ${summary}`;
export const APPROVAL_PROMPT = 'Allow **Bash**: `npm test`?';
export const APPROVAL_OUTCOME = 'Allowed by Ada.';

/** Plays `profile` into `strategy`, finishes it and measures the result on `platform`. */
export async function playProfile(input: {
  clock: VirtualClock;
  platform: RecordingAdapter;
  strategy: Strategy;
  profile: ReplyProfile;
  pcase: PlatformCase;
}): Promise<StreamingFigures> {
  const { clock, platform, strategy, profile, pcase } = input;
  const t0 = clock.now();
  type Event = { at: number; run: () => void };
  const events: Event[] = [];
  const deltas: TimedDelta[] = [];
  for (const step of profile.steps) {
    const at = t0 + step.at;
    if (step.kind === 'text') {
      deltas.push({ at, text: step.text });
      events.push({ at, run: () => strategy.text(step.text) });
    } else if (step.kind === 'tool') {
      events.push({ at, run: () => strategy.toolStart(step.summary) });
      events.push({ at: at + step.durationMs, run: () => strategy.toolEnd(step.summary) });
    } else {
      events.push({ at, run: () => strategy.approval(APPROVAL_PROMPT, APPROVAL_OUTCOME, step.waitMs) });
    }
  }
  events.sort((a, b) => a.at - b.at);
  for (const e of events) {
    if (e.at > clock.now()) await clock.advance(e.at - clock.now());
    e.run();
  }
  let done = false;
  let failure: unknown;
  strategy.finish().then(
    () => {
      done = true;
    },
    (err: unknown) => {
      failure = err;
      done = true;
    },
  );
  await clock.advanceUntil(() => done, 3_600_000);
  if (failure) throw failure;
  // Let stragglers (naive retries still waiting out a retry_after) land before reading the chat.
  await clock.advance(30_000);

  const ops = platform.ops.filter((o) => o.op !== 'typing');
  const caps = pcase.capabilities;
  const vis = analyseVisibility({
    ops,
    deltas,
    source: profile.text,
    dialect: (format) => format ?? caps.dialect,
    exclude: strategy.excluded,
    statusLines: strategy.statusLines,
  });
  const lastOk = ops.filter((o) => o.ok).reduce((m, o) => Math.max(m, o.time), t0);
  const durationMs = lastOk - (deltas[0]?.at ?? t0);
  return {
    calls: ops.length,
    accepted: ops.filter((o) => o.ok).length,
    allowed: allowedCalls(caps, durationMs, vis.messages, ops.filter((o) => o.op === 'startStream').length),
    violations: platform.violations.length,
    otherErrors: ops.filter((o) => !o.ok && o.error !== 'RATE_LIMITED').length,
    stalenessP95Ms: round(quantile(vis.staleness, 0.95), 0),
    stalenessMaxMs: round(max(vis.staleness), 0),
    neverShown: vis.neverShown,
    firstVisibleMs: round(vis.firstVisibleMs, 0),
    fidelity: vis.fidelity,
    fidelityNote: vis.fidelityNote,
    messages: vis.messages,
    durationMs,
  };
}

/** The staleness target of a case: 1.2 x the interval one live message can sustain. */
export function stalenessTargetMs(pcase: PlatformCase): number {
  return 1.2 * effectiveIntervalMs(pcase.capabilities);
}
