/**
 * `npm run bench [-- --only streaming,persistence] [-- --quick]`: runs the
 * benchmark parts, prints their tables and the target checks, and writes
 * bench/results.json (parts not run keep their previous figures).
 *
 * Parts: streaming (virtual clock, deterministic), concurrency (real core,
 * real clock), persistence (lowdb files in a temp dir), e2e (grammy against
 * the fake Bot API), cost (a scripted 30-turn tool session against the fake
 * Messages API's cache accounting, on a virtual clock), rendering (hostile
 * Markdown, real clock), tools (tool-call latency with the sandbox on and off,
 * real clock).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { concurrencyTable, runConcurrency } from './concurrency.js';
import { costTable, runCost } from './cost.js';
import { e2eTable, runE2eTelegram } from './e2e-telegram.js';
import { persistenceTable, runPersistence } from './persistence.js';
import { renderingTable, runRendering } from './rendering.js';
import { runStreamedRendering, streamedRenderingTable } from './rendering-stream.js';
import { type Cell, round, type TargetCheck, table } from './stats.js';
import { runStreaming, streamingTables } from './streaming.js';
import { runToolLatency, toolLatencyTable } from './tool-latency.js';

const PARTS = ['streaming', 'concurrency', 'persistence', 'e2e', 'cost', 'rendering', 'tools'] as const;
type Part = (typeof PARTS)[number];

/** Parsed command line. */
export interface BenchArgs {
  only: Part[];
  /** Small sizes, for a quick look (figures are not comparable with a full run). */
  quick: boolean;
  out: string;
}

/** Reads `--only a,b`, `--quick` and `--out <file>`. */
export function parseArgs(argv: readonly string[]): BenchArgs {
  const only: Part[] = [];
  let quick = false;
  let out = fileURLToPath(new URL('./results.json', import.meta.url));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--out') out = argv[++i] ?? out;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const list = arg === '--only' ? (argv[++i] ?? '') : arg.slice('--only='.length);
      for (const name of list.split(',').filter(Boolean)) {
        if (!(PARTS as readonly string[]).includes(name)) {
          throw new Error(`unknown part "${name}": choose from ${PARTS.join(', ')}`);
        }
        only.push(name as Part);
      }
    } else throw new Error(`unknown option "${arg}": use --only ${PARTS.join(',')}, --quick, --out <file>`);
  }
  return { only: only.length ? only : [...PARTS], quick, out };
}

async function previous(path: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function targetRows(part: string, targets: TargetCheck[]): Cell[][] {
  return targets.map((t) => [part, t.name, t.measured, t.target, t.met ? 'met' : 'MISSED']);
}

/** Runs the chosen parts; returns the results object written to disk. */
export async function runBench(args: BenchArgs, log: (line: string) => void = console.log) {
  const parts: Record<string, unknown> = {};
  const startLoad = loadavg().map((l) => round(l, 2));
  log(`load average at start: ${startLoad.join(' ')} on ${cpus().length} CPUs`);
  const checks: Cell[][] = [];
  const quick = args.quick;
  for (const part of args.only) {
    const started = Date.now();
    log(`\n== ${part} ==`);
    if (part === 'streaming') {
      const cases = await runStreaming({ latencyMs: 100 });
      log(
        'Simulated platform: every call takes 100 ms; it refuses (429) any call that breaks the declared pace.',
      );
      log(streamingTables(cases));
      parts.streaming = { quick, measuredAt: new Date().toISOString(), latencyMs: 100, cases };
      for (const c of cases) checks.push(...targetRows(`streaming ${c.platform}/${c.profile}`, c.targets));
    } else if (part === 'concurrency') {
      const f = await runConcurrency(quick ? { streams: 100, idleChats: 1000 } : {});
      log(concurrencyTable(f));
      parts.concurrency = { quick, measuredAt: new Date().toISOString(), ...f };
      checks.push(...targetRows('concurrency', f.targets));
    } else if (part === 'persistence') {
      const f = await runPersistence(quick ? { sessions: 1000 } : {});
      log(persistenceTable(f));
      parts.persistence = { quick, measuredAt: new Date().toISOString(), ...f };
      checks.push(...targetRows('persistence', f.targets));
    } else if (part === 'cost') {
      const f = await runCost(quick ? { turns: 10, files: 4 } : {});
      log(
        `${f.turns} turns, ${f.toolCalls} tool rounds, ${f.compactions} compaction; model ${'claude-sonnet-5-5'} at list prices; the fake's cache follows the documented rules.`,
      );
      log(costTable(f));
      parts.cost = { quick, measuredAt: new Date().toISOString(), ...f };
      checks.push(...targetRows('cost', f.targets));
    } else if (part === 'rendering') {
      const f = runRendering(quick ? { runs: 5 } : {});
      log('Telegram HTML, whole and partial renders alternating, after one warm-up render.');
      log(renderingTable(f));
      const streamed = await runStreamedRendering();
      log('Streamed through the outbox (edited messages): characters rendered over the reply.');
      log(streamedRenderingTable(streamed));
      parts.rendering = { quick, measuredAt: new Date().toISOString(), ...f, streamed };
      checks.push(...targetRows('rendering', f.targets));
    } else if (part === 'tools') {
      const f = await runToolLatency(quick ? { turns: 3, modelMs: 100 } : {});
      log(
        `Sandbox ${f.sandbox}; each turn waits ${f.modelMs} ms (its first model request) before its first call; ${f.turns} turns per setting and first kind.`,
      );
      log(toolLatencyTable(f));
      parts.tools = { quick, measuredAt: new Date().toISOString(), ...f };
    } else {
      const f = await runE2eTelegram(quick ? { chats: 40, turnsPerChat: 2 } : {});
      log("Fake Bot API limits and the declared paces are Telegram's real numbers (not scaled).");
      log(e2eTable(f));
      parts.e2e = { quick, measuredAt: new Date().toISOString(), limitsScaled: false, ...f };
      checks.push(...targetRows('e2e', f.targets));
    }
    log(`(${part}: ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  log('\n== targets ==');
  log(table(['part', 'check', 'measured', 'target', 'result'], checks));
  const before = await previous(args.out);
  const results = {
    generatedAt: new Date().toISOString(),
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      // Other work on the machine shows in the real-clock parts (concurrency, e2e).
      loadAverageAtStart: startLoad,
      loadAverageAtEnd: loadavg().map((l) => round(l, 2)),
    },
    parts: { ...((before.parts as Record<string, unknown> | undefined) ?? {}), ...parts },
  };
  await writeFile(args.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`\nwrote ${args.out}`);
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await runBench(parseArgs(process.argv.slice(2)));
    // Keep-alive sockets of the SDKs must not hold the process open once the figures are out.
    process.exit(0);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
