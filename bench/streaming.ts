/**
 * Part 1: streaming efficiency, deterministic on a VirtualClock. For each
 * platform case and reply profile, the real outbox and two naive baselines
 * stream the same input into a simulated platform (RecordingAdapter) that
 * declares the real adapter's capabilities, answers after a fixed latency
 * and refuses (429) any call that breaks the declared pace.
 */
import { VirtualClock } from '../src/clock.js';
import { RecordingAdapter } from '../test/fakes/recording-adapter.js';
import { type BaselineKind, BaselineStrategy } from './baselines.js';
import { OutboxStrategy } from './ours.js';
import { effectiveIntervalMs, type PlatformCase, platformCases } from './platforms.js';
import { longAnswer, type ReplyProfile, shortAnswer, toolHeavy } from './profiles.js';
import { type Cell, check, ratio, type TargetCheck, table } from './stats.js';
import { playProfile, type Strategy, type StreamingFigures, stalenessTargetMs } from './timeline.js';

/** Options for {@link runStreaming}. */
export interface StreamingOptions {
  /** One-way latency of every platform call (default 100 ms). */
  latencyMs?: number;
  /** Profiles to run (default short, long, tool-heavy). */
  profiles?: ReplyProfile[];
  /** Platform cases to run (default all). */
  cases?: PlatformCase[];
}

/** One platform case x profile, with the baselines and our ratios against them. */
export interface StreamingCase {
  platform: string;
  profile: string;
  intervalMs: number;
  stalenessTargetMs: number;
  ours: StreamingFigures;
  baselines: Record<BaselineKind, StreamingFigures>;
  /** ours / baseline. */
  ratios: Record<BaselineKind, { calls: number | null; stalenessP95: number | null; violations: string }>;
  targets: TargetCheck[];
}

const BASELINES: BaselineKind[] = ['every-delta', 'fixed-timer'];

/** Plays `profile` through the strategy `make` builds, on `pcase`'s simulated platform. */
export async function runOne(
  pcase: PlatformCase,
  profile: ReplyProfile,
  latencyMs: number,
  make: (platform: RecordingAdapter) => Strategy,
): Promise<StreamingFigures> {
  const clock = new VirtualClock(1_000_000);
  const platform = new RecordingAdapter({
    clock,
    platform: pcase.platform,
    capabilities: () => pcase.capabilities,
    ...(pcase.globalBudget ? { globalBudget: pcase.globalBudget } : {}),
    latencyMs,
    nativeStream: pcase.capabilities.nativeStream,
  });
  try {
    return await playProfile({ clock, platform, strategy: make(platform), profile, pcase });
  } finally {
    platform.removeAllListeners();
  }
}

/** Runs every case; returns the figures. */
export async function runStreaming(options: StreamingOptions = {}): Promise<StreamingCase[]> {
  const latencyMs = options.latencyMs ?? 100;
  const profiles = options.profiles ?? [shortAnswer(), longAnswer(), toolHeavy()];
  const out: StreamingCase[] = [];
  for (const pcase of options.cases ?? platformCases()) {
    for (const profile of profiles) {
      const ours = await runOne(pcase, profile, latencyMs, (p) => new OutboxStrategy(p, pcase.chat));
      const baselines = {} as Record<BaselineKind, StreamingFigures>;
      for (const kind of BASELINES) {
        baselines[kind] = await runOne(
          pcase,
          profile,
          latencyMs,
          (p) => new BaselineStrategy(kind, p, pcase.chat),
        );
      }
      const target = stalenessTargetMs(pcase);
      const ratios = {} as StreamingCase['ratios'];
      for (const kind of BASELINES) {
        const b = baselines[kind];
        ratios[kind] = {
          calls: ratio(ours.calls, b.calls),
          stalenessP95: ratio(ours.stalenessP95Ms, b.stalenessP95Ms),
          violations: `${ours.violations}:${b.violations}`,
        };
      }
      out.push({
        platform: pcase.name,
        profile: profile.name,
        intervalMs: effectiveIntervalMs(pcase.capabilities),
        stalenessTargetMs: target,
        ours,
        baselines,
        ratios,
        targets: [
          check('pace violations', ours.violations, '0', ours.violations === 0),
          check('staleness p95 ms', ours.stalenessP95Ms, `<= ${target}`, ours.stalenessP95Ms <= target),
          check('calls within budget', ours.calls, `<= ${ours.allowed}`, ours.calls <= ours.allowed),
          check('final text exact', ours.fidelity, 'exact', ours.fidelity),
        ],
      });
    }
  }
  return out;
}

/** The tables printed for part 1. */
export function streamingTables(cases: StreamingCase[]): string {
  const head = ['case', 'calls', 'allowed', '429s', 'stale p95', 'stale max', 'first text', 'exact', 'msgs'];
  const rows: Cell[][] = [];
  for (const c of cases) {
    const name = `${c.platform}/${c.profile}`;
    const line = (label: string, f: StreamingFigures): Cell[] => [
      label,
      f.calls,
      f.allowed,
      f.violations,
      f.stalenessP95Ms,
      f.stalenessMaxMs,
      f.firstVisibleMs,
      f.fidelity,
      f.messages,
    ];
    rows.push(line(`${name} ours`, c.ours));
    for (const kind of BASELINES) rows.push(line(`  ${kind}`, c.baselines[kind]));
  }
  const ratioHead = ['case', 'target p95', 'met', 'calls/every', 'p95/every', 'calls/timer', 'p95/timer'];
  const ratioRows: Cell[][] = cases.map((c) => [
    `${c.platform}/${c.profile}`,
    c.stalenessTargetMs,
    c.targets.every((t) => t.met)
      ? 'all'
      : c.targets
          .filter((t) => !t.met)
          .map((t) => `missed ${t.name}`)
          .join('; '),
    c.ratios['every-delta'].calls,
    c.ratios['every-delta'].stalenessP95,
    c.ratios['fixed-timer'].calls,
    c.ratios['fixed-timer'].stalenessP95,
  ]);
  return `${table(head, rows)}\n\nOurs against the baselines (ratio ours/baseline; lower is better)\n${table(ratioHead, ratioRows)}`;
}
