/**
 * The cost part: one scripted coding session (30 turns, tool calls, one
 * /compact) replayed through the real InteractiveSession and the real
 * AnthropicProvider against the fake Messages API, whose cache accounting
 * follows the documented rules, on a virtual clock. The same script runs with
 * the person's messages 30 s apart and 10 minutes apart, each with caching
 * off (the baseline), `auto` (the default), and the fixed lifetimes, and the
 * session's own ledger says what was billed.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock } from '../src/clock.js';
import { AnthropicProvider } from '../src/provider/anthropic.js';
import type { CacheSetting } from '../src/provider/cache.js';
import { DEFAULT_PRICES, ledgerCost, priceFor } from '../src/provider/pricing.js';
import { InteractiveSession } from '../src/session/index.js';
import { cacheHitRate, ledgerTotals, promptTokens } from '../src/session/usage-ledger.js';
import { type FakeAnthropic, type ScriptedResponse, startFakeAnthropic } from '../test/fakes/anthropic.js';
import { seededRandom } from '../test/fakes/telegram/limits.js';
import { type Cell, check, round, type TargetCheck, table } from './stats.js';

const MODEL = 'claude-sonnet-5-5';
const MINUTE = 60_000;

/** Options of {@link runCost}. */
export interface CostOptions {
  /** Turns in the scripted session (at least 30 for the reported figures). */
  turns?: number;
  /** Files in the workspace the tools read. */
  files?: number;
}

/** One replay of the script. */
export interface CostRun {
  gap: string;
  cache: CacheSetting;
  requests: number;
  promptTokens: number;
  /** Tokens billed at the full input price. */
  fullPriceInput: number;
  cacheWrites: number;
  cacheReads: number;
  hitRate: number;
  inputUsd: number;
  totalUsd: number;
  /** Total cost against the same gap with caching off. */
  costRatio: number;
  inputCostRatio: number;
}

/** What the part measured. */
export interface CostFigures {
  turns: number;
  toolCalls: number;
  compactions: number;
  runs: CostRun[];
  targets: TargetCheck[];
}

interface Step {
  prompt: string;
  /** Tool rounds before the answer; each round is one model call with these tool calls. */
  rounds: Array<Array<{ name: string; input: Record<string, unknown> }>>;
  answer: string;
  compactAfter: boolean;
}

/** The session, decided once from a seed so every replay is the same conversation. */
function script(turns: number, files: number): Step[] {
  const random = seededRandom(13);
  const pick = (n: number) => Math.floor(random() * n);
  const steps: Step[] = [];
  for (let t = 0; t < turns; t++) {
    const rounds: Step['rounds'] = [];
    const toolRounds = t % 5 === 4 ? 0 : 1 + pick(2);
    for (let r = 0; r < toolRounds; r++) {
      const file = `src/module-${pick(files)}.ts`;
      rounds.push(
        r === 0 && t % 3 === 0
          ? [{ name: 'Grep', input: { pattern: `export function f${pick(40)}`, path: 'src' } }]
          : [{ name: 'Read', input: { path: file } }],
      );
    }
    steps.push({
      prompt: `Step ${t + 1}: look at module ${pick(files)} and tell me what to change in ${pick(40)} words.`,
      rounds,
      answer: `Here is what I found in step ${t + 1}. `.repeat(10 + pick(20)),
      compactAfter: t === Math.floor(turns / 2),
    });
  }
  return steps;
}

async function workspace(files: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-bench-cost-'));
  await mkdir(join(dir, 'src'));
  const random = seededRandom(7);
  for (let i = 0; i < files; i++) {
    const lines: string[] = [];
    // 200-600 lines (3,000-9,000 tokens): the size of a real module, so reads dominate the prompt as they do.
    const count = 200 + Math.floor(random() * 400);
    for (let l = 0; l < count; l++)
      lines.push(`export function f${l}(x: number): number { return x * ${l}; }`);
    await writeFile(join(dir, 'src', `module-${i}.ts`), `${lines.join('\n')}\n`);
  }
  return dir;
}

async function replay(
  fake: FakeAnthropic,
  clock: VirtualClock,
  cwd: string,
  steps: Step[],
  gapMs: number,
  cache: CacheSetting,
) {
  fake.reset();
  const session = await InteractiveSession.open({
    cwd,
    provider: new AnthropicProvider({ apiKey: 'sk-ant-bench', baseURL: fake.url, maxRetries: 0 }),
    model: MODEL,
    clock,
    cache,
    toolEnv: {},
    autoCompactThreshold: false,
  });
  try {
    for (const step of steps) {
      const replies: ScriptedResponse[] = [
        ...step.rounds.map((toolUse) => ({ toolUse })),
        { text: step.answer },
      ];
      fake.enqueue(...replies);
      await (await session.submit(step.prompt)).completed;
      if (step.compactAfter) {
        fake.enqueue({ text: 'Summary: the modules were reviewed step by step; changes were proposed.' });
        await session.compactContext();
      }
      await clock.advance(gapMs);
    }
    return session.getUsage();
  } finally {
    await session.close();
  }
}

/** Replays the script for each gap and cache setting. */
export async function runCost(options: CostOptions = {}): Promise<CostFigures> {
  const turns = options.turns ?? 30;
  const files = options.files ?? 12;
  const steps = script(turns, files);
  const clock = new VirtualClock(Date.parse('2026-12-01T09:00:00Z'));
  const fake = await startFakeAnthropic({ now: () => clock.now() });
  const cwd = await workspace(files);
  const runs: CostRun[] = [];
  const price = priceFor(MODEL, DEFAULT_PRICES);
  try {
    for (const [gap, gapMs] of [
      ['30 s', 30_000],
      ['10 min', 10 * MINUTE],
    ] as const) {
      let baseline: { total: number; input: number } | undefined;
      for (const cache of ['off', 'auto', '5m', '1h'] as const) {
        const ledger = await replay(fake, clock, cwd, steps, gapMs, cache);
        const t = ledgerTotals(ledger);
        const totalUsd = ledgerCost(ledger).usd;
        const inputUsd = totalUsd - (t.outputTokens * (price?.output ?? 0)) / 1e6;
        baseline ??= { total: totalUsd, input: inputUsd };
        runs.push({
          gap,
          cache,
          requests: t.calls,
          promptTokens: promptTokens(t),
          fullPriceInput: t.inputTokens,
          cacheWrites: t.cacheWrite5mTokens + t.cacheWrite1hTokens,
          cacheReads: t.cacheReadTokens,
          hitRate: round(cacheHitRate(t), 3),
          inputUsd: round(inputUsd, 4),
          totalUsd: round(totalUsd, 4),
          costRatio: round(totalUsd / baseline.total, 3),
          inputCostRatio: round(inputUsd / baseline.input, 3),
        });
      }
    }
  } finally {
    await fake.close();
    await rm(cwd, { recursive: true, force: true });
  }
  const auto = (gap: string) => runs.find((r) => r.gap === gap && r.cache === 'auto');
  const target = (gap: string, bound: number): TargetCheck => {
    const ratio = auto(gap)?.costRatio ?? null;
    return check(
      `cost with caching (auto) vs off, messages ${gap} apart`,
      ratio,
      `<= ${bound}`,
      ratio !== null && ratio <= bound,
    );
  };
  return {
    turns,
    toolCalls: steps.reduce((n, s) => n + s.rounds.length, 0),
    compactions: steps.filter((s) => s.compactAfter).length,
    runs,
    targets: [target('30 s', 0.2), target('10 min', 0.3)],
  };
}

/** The part's table. */
export function costTable(f: CostFigures): string {
  const rows: Cell[][] = f.runs.map((r) => [
    r.gap,
    r.cache,
    r.requests,
    r.promptTokens,
    r.fullPriceInput,
    r.cacheWrites,
    r.cacheReads,
    `${round(r.hitRate * 100, 1)}%`,
    `$${r.totalUsd.toFixed(4)}`,
    r.costRatio,
    r.inputCostRatio,
  ]);
  return table(
    [
      'gap',
      'cache',
      'requests',
      'prompt tok',
      'full-price in',
      'cache writes',
      'cache reads',
      'hit rate',
      'cost',
      'vs off',
      'input vs off',
    ],
    rows,
  );
}
