/**
 * Tool latency: what a tool call costs the agent, first in a turn and later,
 * with the sandbox on and off, beside the floors (bubblewrap starting
 * `true`, and `execFile` of `true` with no sandbox at all). A turn opens its
 * sandbox alongside its first model request; the bench waits `modelMs` (a
 * fast first model response) before the first call, as a real turn would.
 * Real clock: the figures depend on the machine and what else runs on it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/clock.js';
import { Sandbox } from '../src/sandbox/index.js';
import type { SandboxTurn } from '../src/sandbox/turn.js';
import { type Cell, median, quantile, round, table } from './stats.js';

/** One row: a kind of call and its timings in ms. */
export interface LatencyRow {
  what: string;
  samples: number;
  medianMs: number;
  p90Ms: number;
}

/** The figures of one run. */
export interface ToolLatencyFigures {
  turns: number;
  modelMs: number;
  sandbox: string;
  rows: LatencyRow[];
}

const nothing = new AbortController().signal;

function row(what: string, samples: number[]): LatencyRow {
  return {
    what,
    samples: samples.length,
    medianMs: round(median(samples), 1),
    p90Ms: round(quantile(samples, 0.9), 1),
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function execTrue(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, (err) => (err ? reject(err) : resolve()));
  });
}

const bash = (turn: SandboxTurn) =>
  turn.exec('true', { timeoutMs: 10_000, signal: nothing, onChunk: () => undefined });
const read = (turn: SandboxTurn) => turn.request('read', { path: 'small.txt', maxBytes: 1024 });

/** Runs `turns` turns per setting, each: wait for the model, then three Bash and three Read calls. */
export async function runToolLatency(
  options: { turns?: number; modelMs?: number } = {},
): Promise<ToolLatencyFigures> {
  const turns = options.turns ?? 20;
  const modelMs = options.modelMs ?? 300;
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'sb-bench-tools-')));
  await writeFile(join(dir, 'small.txt'), 'hello\n');
  const rows: LatencyRow[] = [];
  const on = new Sandbox({ mode: 'required' });
  const status = await on.check();
  try {
    const settings = [
      { name: 'sandbox on', sandbox: on },
      { name: 'sandbox on, no prestart', sandbox: new Sandbox({ mode: 'required', prestart: false }) },
      { name: 'sandbox off', sandbox: new Sandbox({ mode: 'off' }) },
    ];
    for (const { name, sandbox } of settings) {
      const firstBash: number[] = [];
      const laterBash: number[] = [];
      const firstRead: number[] = [];
      const laterRead: number[] = [];
      for (let i = 0; i < turns; i++) {
        // Bash first in one turn, Read first in the next: each "first" is the turn's first call.
        for (const firstKind of ['bash', 'read'] as const) {
          const turn = sandbox.openTurn(dir, systemClock);
          await new Promise((resolve) => setTimeout(resolve, modelMs));
          const order =
            firstKind === 'bash'
              ? [bash, read, bash, read, bash, read]
              : [read, bash, read, bash, read, bash];
          for (const [index, call] of order.entries()) {
            const ms = await timed(() => call(turn));
            const isBash = call === bash;
            if (index === 0) (isBash ? firstBash : firstRead).push(ms);
            else if (index > 1) (isBash ? laterBash : laterRead).push(ms);
          }
          await turn.close();
        }
      }
      rows.push(
        row(`Bash \`true\`, first call of a turn (${name})`, firstBash),
        row(`Bash \`true\`, later calls (${name})`, laterBash),
        row(`Read a small file, first call of a turn (${name})`, firstRead),
        row(`Read a small file, later calls (${name})`, laterRead),
      );
    }
    const floors = { bwrap: [] as number[], exec: [] as number[] };
    for (let i = 0; i < turns * 3; i++) {
      floors.bwrap.push(
        await timed(() =>
          execTrue('/usr/bin/bwrap', [
            '--unshare-all',
            '--ro-bind',
            '/',
            '/',
            '--proc',
            '/proc',
            '--dev',
            '/dev',
            '/bin/true',
          ]),
        ),
      );
      floors.exec.push(await timed(() => execTrue('/bin/true', [])));
    }
    rows.push(
      row('floor: bubblewrap starting `true` (execFile)', floors.bwrap),
      row('floor: execFile of `true`, no sandbox', floors.exec),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return { turns, modelMs, sandbox: status.state, rows };
}

/** The printed table. */
export function toolLatencyTable(f: ToolLatencyFigures): string {
  const cells: Cell[][] = f.rows.map((r) => [r.what, r.samples, r.medianMs, r.p90Ms]);
  return table(['call', 'samples', 'median ms', 'p90 ms'], cells);
}
