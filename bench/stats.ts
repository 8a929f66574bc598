/**
 * Small statistics and table helpers shared by the benchmark parts.
 */

/** The value at quantile `q` (0..1) of `values`, nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median of `values`. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Largest value, or NaN when empty. */
export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => Math.max(a, b));
}

/** Rounds to `digits` decimals (keeps results.json readable). */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** `a / b` rounded, or null when `b` is 0 (a ratio against nothing). */
export function ratio(a: number, b: number, digits = 2): number | null {
  return b === 0 || !Number.isFinite(a) || !Number.isFinite(b) ? null : round(a / b, digits);
}

/** A cell for a printed table. */
export type Cell = string | number | boolean | null | undefined;

function show(cell: Cell): string {
  if (cell === null || cell === undefined) return '-';
  if (typeof cell === 'number') {
    if (Number.isNaN(cell)) return 'n/a';
    if (!Number.isFinite(cell)) return cell > 0 ? 'inf' : '-inf';
    return Number.isInteger(cell) ? String(cell) : cell.toFixed(2);
  }
  if (typeof cell === 'boolean') return cell ? 'yes' : 'NO';
  return cell;
}

/** Formats rows as an aligned plain-text table with a header rule. */
export function table(headers: readonly string[], rows: readonly Cell[][]): string {
  const text = rows.map((r) => r.map(show));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)].join('\n');
}

/** A target check: the measured value, the bound and whether it holds. */
export interface TargetCheck {
  name: string;
  measured: number | boolean | null;
  target: string;
  met: boolean;
}

/** Builds a {@link TargetCheck}. */
export function check(name: string, measured: number | boolean | null, target: string, met: boolean) {
  return { name, measured, target, met } satisfies TargetCheck;
}
