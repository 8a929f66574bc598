/**
 * Part 5: the cost of rendering hostile Markdown on the event loop. Each
 * shape of test/fakes/markdown-shapes.ts (3,000 nested `>`, `1. ` × 2,000, a
 * 44 KB table, 1,000 `[`) is rendered whole and as a partial reply in
 * Telegram HTML, the richest dialect; the median and worst of several renders
 * are reported, and a doubled shape shows how the cost grows with length
 * (about 2 when linear, about 4 when quadratic). Wall time counts whatever
 * else the machine runs (eight engineers share two cores here); the CPU time
 * of this thread is what one render costs the event loop, and the target is
 * checked against it.
 */
import { performance } from 'node:perf_hooks';
import { telegramHtml } from '../adapters/telegram/markdown.js';
import { renderMarkdown } from '../src/bot/format/index.js';
import { hostileShapes } from '../test/fakes/markdown-shapes.js';
import { type Cell, check, max, median, round, type TargetCheck, table } from './stats.js';

/** Options for {@link runRendering}. */
export interface RenderingOptions {
  /** Renders timed per shape (after one warm-up). */
  runs?: number;
}

/** One shape's figures. */
export interface ShapeFigures {
  shape: string;
  chars: number;
  medianMs: number;
  worstMs: number;
  /** Median CPU time of this thread per render. */
  cpuMedianMs: number;
  /** Median of the shape written twice over this shape's median. */
  doubledRatio: number;
}

/** Figures of the rendering part. */
export interface RenderingFigures {
  shapes: ShapeFigures[];
  targets: TargetCheck[];
}

const TARGET_MS = 50;

function timeRenders(md: string, runs: number): { wall: number[]; cpu: number[] } {
  const wall: number[] = [];
  const cpu: number[] = [];
  renderMarkdown(md, telegramHtml, { partial: true });
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    renderMarkdown(md, telegramHtml, { partial: i % 2 === 1 });
    const used = process.cpuUsage(cpuStarted);
    wall.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

/** Renders every shape `runs` times and checks each against 50 ms. */
export function runRendering(options: RenderingOptions = {}): RenderingFigures {
  const runs = options.runs ?? 21;
  const shapes: ShapeFigures[] = [];
  const targets: TargetCheck[] = [];
  for (const [shape, md] of Object.entries(hostileShapes())) {
    const times = timeRenders(md, runs);
    const doubled = timeRenders(doubleShape(md), runs);
    const figures = {
      shape,
      chars: md.length,
      medianMs: round(median(times.wall), 2),
      worstMs: round(max(times.wall), 2),
      cpuMedianMs: round(median(times.cpu), 2),
      doubledRatio: round(median(doubled.cpu) / Math.max(median(times.cpu), 0.001), 2),
    };
    shapes.push(figures);
    const met = figures.cpuMedianMs < TARGET_MS;
    targets.push(check(`${shape}: median CPU per render`, figures.cpuMedianMs, `< ${TARGET_MS} ms`, met));
  }
  return { shapes, targets };
}

/** The shape at twice the length, the same kind of text (nesting twice as deep, twice the rows). */
function doubleShape(md: string): string {
  const newline = md.indexOf('\n');
  if (newline < 0) {
    // One line: double its leading run of markers.
    const run = /^(\[+|(?:>)+|(?:1\. )+)/.exec(md)?.[0] ?? md;
    return run + md;
  }
  // A table: its header and rule, then its rows twice.
  const rule = md.indexOf('\n', newline + 1);
  return md + md.slice(rule);
}

/** The printed table of the rendering part. */
export function renderingTable(f: RenderingFigures): string {
  const rows: Cell[][] = f.shapes.map((s) => [
    s.shape,
    s.chars,
    s.cpuMedianMs,
    s.medianMs,
    s.worstMs,
    s.doubledRatio,
  ]);
  return table(
    ['shape', 'chars', 'CPU median ms', 'wall median ms', 'wall worst ms', 'CPU at 2x length'],
    rows,
  );
}
