/**
 * The usage ledger: every model request's tokens added to the session's
 * record, per UTC day and model, so cost survives restarts and can be summed
 * per session, per day, or over the whole bot.
 */
import { LONG_PROMPT_TOKENS } from '../provider/pricing.js';
import type { ModelUsage, TokenUsage, TranscriptionTotals, UsageLedger, UsageTotals } from '../vocabulary.js';

/** A ledger with nothing in it. */
export function emptyLedger(): UsageLedger {
  return { days: {} };
}

/** Totals of nothing. */
export function zeroTotals(): UsageTotals {
  return {
    calls: 0,
    inputTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    cacheReadTokens: 0,
    outputTokens: 0,
  };
}

/** One request's usage as totals; cache writes without a lifetime breakdown count as 5-minute writes. */
export function totalsOf(usage: TokenUsage): UsageTotals {
  const written = usage.cacheCreationInputTokens ?? 0;
  const split = usage.cacheCreation;
  const oneHour = split ? split.ephemeral1hInputTokens : 0;
  return {
    calls: 1,
    inputTokens: usage.inputTokens,
    cacheWrite5mTokens: split ? split.ephemeral5mInputTokens : written,
    cacheWrite1hTokens: oneHour,
    cacheReadTokens: usage.cacheReadInputTokens ?? 0,
    outputTokens: usage.outputTokens,
    ...(usage.webSearchRequests ? { webSearches: usage.webSearchRequests } : {}),
  };
}

/** Adds `b` into `a`. */
export function addTotals(a: UsageTotals, b: UsageTotals): void {
  a.calls += b.calls;
  a.inputTokens += b.inputTokens;
  a.cacheWrite5mTokens += b.cacheWrite5mTokens;
  a.cacheWrite1hTokens += b.cacheWrite1hTokens;
  a.cacheReadTokens += b.cacheReadTokens;
  a.outputTokens += b.outputTokens;
  if (b.webSearches) a.webSearches = (a.webSearches ?? 0) + b.webSearches;
}

/** The prompt a request sent: full-price input, cache writes and cache reads. */
export function promptTokens(t: UsageTotals): number {
  return t.inputTokens + t.cacheWrite5mTokens + t.cacheWrite1hTokens + t.cacheReadTokens;
}

/** Records one request of `model` at `atMs` into `ledger`. */
export function recordUsage(ledger: UsageLedger, model: string, usage: TokenUsage, atMs: number): void {
  const day = new Date(atMs).toISOString().slice(0, 10);
  const models = ledger.days[day] ?? {};
  ledger.days[day] = models;
  const bucket: ModelUsage = models[model] ?? zeroTotals();
  models[model] = bucket;
  const one = totalsOf(usage);
  addTotals(bucket, one);
  if (promptTokens(one) > LONG_PROMPT_TOKENS) {
    bucket.long ??= zeroTotals();
    addTotals(bucket.long, one);
  }
}

/** Records one voice note transcribed by `model` at `atMs`; `seconds` when its length is known (else 0). */
export function recordTranscription(ledger: UsageLedger, model: string, seconds: number, atMs: number): void {
  const day = new Date(atMs).toISOString().slice(0, 10);
  addTranscription(ledger, day, model, { notes: 1, seconds });
}

function addTranscription(ledger: UsageLedger, day: string, model: string, add: TranscriptionTotals): void {
  ledger.transcription ??= {};
  const models = ledger.transcription[day] ?? {};
  ledger.transcription[day] = models;
  const bucket = models[model] ?? { notes: 0, seconds: 0 };
  models[model] = bucket;
  bucket.notes += add.notes;
  bucket.seconds += add.seconds;
}

/** Voice notes in `ledger` (or on `day`) added up across transcription models. */
export function transcriptionTotals(ledger: UsageLedger, day?: string): TranscriptionTotals {
  const total = { notes: 0, seconds: 0 };
  for (const [date, models] of Object.entries(ledger.transcription ?? {})) {
    if (day !== undefined && date !== day) continue;
    for (const t of Object.values(models)) {
      total.notes += t.notes;
      total.seconds += t.seconds;
    }
  }
  return total;
}

/** Everything in `ledger` (or on `day`) added up across models. */
export function ledgerTotals(ledger: UsageLedger, day?: string): UsageTotals {
  const total = zeroTotals();
  for (const [date, models] of Object.entries(ledger.days)) {
    if (day !== undefined && date !== day) continue;
    for (const totals of Object.values(models)) addTotals(total, totals);
  }
  return total;
}

/** Adds every bucket of `from` into `into` (the bot's totals over many sessions). */
export function mergeLedger(into: UsageLedger, from: UsageLedger): void {
  for (const [date, models] of Object.entries(from.days)) {
    const target = into.days[date] ?? {};
    into.days[date] = target;
    for (const [model, totals] of Object.entries(models)) {
      const bucket: ModelUsage = target[model] ?? zeroTotals();
      target[model] = bucket;
      addTotals(bucket, totals);
      if (totals.long) {
        bucket.long ??= zeroTotals();
        addTotals(bucket.long, totals.long);
      }
    }
  }
  for (const [date, models] of Object.entries(from.transcription ?? {}))
    for (const [model, totals] of Object.entries(models)) addTranscription(into, date, model, totals);
}

/** True when nothing was ever recorded in `ledger`. */
export function ledgerEmpty(ledger: UsageLedger): boolean {
  return Object.keys(ledger.days).length === 0 && Object.keys(ledger.transcription ?? {}).length === 0;
}

/** A deep copy, so a caller cannot change the session's own ledger. */
export function copyLedger(ledger: UsageLedger): UsageLedger {
  const copy = emptyLedger();
  mergeLedger(copy, ledger);
  return copy;
}

/** Share of the prompt read from the cache (0..1); 0 with no prompt. */
export function cacheHitRate(t: UsageTotals): number {
  const prompt = promptTokens(t);
  return prompt === 0 ? 0 : t.cacheReadTokens / prompt;
}
