/**
 * The bot's Prometheus metrics, on a registry of their own (never the
 * process-wide default, so two bots in one process, or a library user's own
 * metrics, never collide). Every name starts with `switchboard_`.
 *
 * Counters are pushed by the code that sees the event (a platform call, a
 * finished turn); levels that already live somewhere (queue depth, loaded
 * sessions, pending approvals) are read at scrape time through
 * {@link MetricsSources}, so nothing has to keep a second copy in step.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { TokenUsage } from '../vocabulary.js';

/** How a turn ended, as the `outcome` label of `switchboard_turns_finished_total`. */
export type TurnOutcome = 'complete' | 'interrupted' | 'error';

/** How a platform call ended, as the `outcome` label of `switchboard_platform_calls_total`. */
export type CallOutcome = 'ok' | 'rate_limited' | 'error';

/** Levels read when Prometheus scrapes; each returns the current value. */
export interface MetricsSources {
  /** Messages waiting behind running replies, all chats together. */
  queueDepth(): number;
  /** Chats with a reply running now. */
  activeTurns(): number;
  /** Sessions held in memory. */
  loadedSessions(): number;
  /** Approval prompts nobody has answered yet. */
  pendingApprovals(): number;
}

/** The instruments the rest of the bot reports to. */
export interface SwitchboardMetrics {
  readonly registry: Registry;
  turnStarted(platform: string): void;
  turnFinished(platform: string, outcome: TurnOutcome): void;
  /** One model call's usage, by token kind; `costUsd` when the model's price is known. */
  modelUsage(model: string, usage: TokenUsage, costUsd?: number): void;
  platformCall(platform: string, method: string, outcome: CallOutcome): void;
  /** A replica took over a chat whose lease had expired elsewhere. */
  leaseTakeover(): void;
  /** Where the gauges read their levels; the last call wins. */
  observe(sources: MetricsSources): void;
}

/** Creates the instruments on a fresh registry, with Node's own metrics (event-loop lag among them). */
export function createMetrics(): SwitchboardMetrics {
  const registry = new Registry();
  // Event-loop lag, heap and CPU, under the same prefix as everything else.
  collectDefaultMetrics({ register: registry, prefix: 'switchboard_' });
  let sources: MetricsSources | undefined;
  const level = (read: (s: MetricsSources) => number) =>
    function (this: Gauge) {
      this.set(sources ? read(sources) : 0);
    };

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const turnsStarted = counter('switchboard_turns_started_total', 'Replies started, by platform.', [
    'platform',
  ]);
  const turnsFinished = counter(
    'switchboard_turns_finished_total',
    'Replies finished, by platform and outcome (complete, interrupted, error).',
    ['platform', 'outcome'],
  );
  const tokens = counter(
    'switchboard_model_tokens_total',
    'Model tokens by model and kind (input, output, cache_write, cache_read).',
    ['model', 'kind'],
  );
  const searches = counter(
    'switchboard_web_searches_total',
    'Web searches the Messages API ran for the agent (billed per 1,000), by model.',
    ['model'],
  );
  const cost = counter(
    'switchboard_model_cost_usd_total',
    'Model cost in US dollars at list prices, by model.',
    ['model'],
  );
  const calls = counter(
    'switchboard_platform_calls_total',
    'Calls to the chat platforms, by platform, method and outcome (ok, rate_limited, error).',
    ['platform', 'method', 'outcome'],
  );
  const takeovers = counter(
    'switchboard_lease_takeovers_total',
    'Chats this replica took over after another replica stopped renewing their lease.',
  );
  for (const [name, help, read] of [
    ['switchboard_queue_depth', 'Messages waiting behind running replies.', (s) => s.queueDepth()],
    ['switchboard_active_turns', 'Chats with a reply running now.', (s) => s.activeTurns()],
    ['switchboard_loaded_sessions', 'Sessions held in memory.', (s) => s.loadedSessions()],
    ['switchboard_approvals_pending', 'Approval prompts waiting for an answer.', (s) => s.pendingApprovals()],
  ] as const satisfies readonly (readonly [string, string, (s: MetricsSources) => number])[]) {
    new Gauge({ name, help, registers: [registry], collect: level(read) });
  }

  return {
    registry,
    turnStarted: (platform) => turnsStarted.inc({ platform }),
    turnFinished: (platform, outcome) => turnsFinished.inc({ platform, outcome }),
    modelUsage(model, usage, costUsd) {
      tokens.inc({ model, kind: 'input' }, usage.inputTokens);
      tokens.inc({ model, kind: 'output' }, usage.outputTokens);
      tokens.inc({ model, kind: 'cache_write' }, usage.cacheCreationInputTokens ?? 0);
      tokens.inc({ model, kind: 'cache_read' }, usage.cacheReadInputTokens ?? 0);
      if (usage.webSearchRequests) searches.inc({ model }, usage.webSearchRequests);
      if (costUsd !== undefined) cost.inc({ model }, costUsd);
    },
    platformCall: (platform, method, outcome) => calls.inc({ platform, method, outcome }),
    leaseTakeover: () => takeovers.inc(),
    observe(next) {
      sources = next;
    },
  };
}
