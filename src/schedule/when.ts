/**
 * The `<when>` of `/schedule <when> <prompt>` and the next run it gives.
 * Calendar rules are cron expressions evaluated by croner in the chat's time
 * zone, so daylight-saving changes keep "daily 09:00" at nine local time.
 */
import { Cron } from 'croner';
import { SwitchboardError } from '../errors.js';

/** When a schedule runs: once, every fixed period, or on a cron rule in a time zone. */
export type ScheduleSpec =
  | { kind: 'once'; at: number }
  | { kind: 'every'; everyMs: number; from: number }
  | { kind: 'cron'; cron: string; timezone: string };

/** How the forms of `<when>` read, for usage lines and errors. */
export const WHEN_FORMS =
  '`in 10m` (s, m, h, d), `every 2h`, `daily 09:00`, `weekdays 09:00`, or a cron expression in quotes ("0 9 * * 1-5")';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Shortest period of `every`: a shorter one would flood the chat. */
export const MIN_EVERY_MS = 60_000;
/** Longest wait of `in`: a year, so a typo does not make a schedule nobody remembers. */
const MAX_IN_MS = 366 * 86_400_000;

/** A parsed `/schedule` argument: the rule and the prompt after it. */
export interface ParsedSchedule {
  spec: ScheduleSpec;
  /** The rule as the person wrote it, shown by /schedules. */
  label: string;
  prompt: string;
}

/** True when `name` is an IANA time zone this runtime knows. */
export function isTimeZone(name: string): boolean {
  if (!name || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function badWhen(text: string): SwitchboardError {
  return new SwitchboardError(
    'INVALID_SCHEDULE',
    `"${text.slice(0, 60)}" is not a time I understand. Use ${WHEN_FORMS}, then the prompt.`,
  );
}

function duration(amount: string, unit: string): number {
  return Number(amount) * (UNIT_MS[unit] ?? Number.NaN);
}

function clockTime(text: string): { hour: number; minute: number } | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text);
  return m ? { hour: Number(m[1]), minute: Number(m[2]) } : undefined;
}

/**
 * Parses `<when> <prompt>` as typed after /schedule. `now` anchors `in` and
 * `every`; `timezone` is the chat's zone for the calendar forms.
 *
 * @throws SwitchboardError `INVALID_SCHEDULE` naming the forms that work.
 */
export function parseSchedule(args: string, now: number, timezone: string): ParsedSchedule {
  const text = args.trim();
  const quoted = /^["“]([^"”]+)["”]\s+([\s\S]+)$/.exec(text);
  if (quoted) {
    const cron = (quoted[1] ?? '').trim().replace(/\s+/g, ' ');
    if (cron.split(' ').length !== 5) {
      throw new SwitchboardError(
        'INVALID_SCHEDULE',
        `"${cron.slice(0, 60)}" is not a five-field cron expression (minute hour day month weekday), e.g. "0 9 * * 1-5".`,
      );
    }
    const spec: ScheduleSpec = { kind: 'cron', cron, timezone };
    checkCron(spec);
    return { spec, label: `"${cron}"`, prompt: needPrompt(quoted[2]) };
  }
  const [first = '', second = '', ...rest] = text.split(/\s+/);
  const prompt = rest.join(' ');
  const word = first.toLowerCase();
  if (word === 'in' || word === 'every') {
    const m = /^(\d{1,6})([smhd])$/i.exec(second);
    if (!m) throw badWhen(`${first} ${second}`);
    const ms = duration(m[1] ?? '', (m[2] ?? '').toLowerCase());
    if (word === 'in') {
      if (ms <= 0 || ms > MAX_IN_MS) throw badWhen(`${first} ${second}`);
      return { spec: { kind: 'once', at: now + ms }, label: `in ${second}`, prompt: needPrompt(prompt) };
    }
    if (ms < MIN_EVERY_MS) {
      throw new SwitchboardError('INVALID_SCHEDULE', 'The shortest period is one minute (`every 1m`).');
    }
    return {
      spec: { kind: 'every', everyMs: ms, from: now },
      label: `every ${second}`,
      prompt: needPrompt(prompt),
    };
  }
  if (word === 'daily' || word === 'weekdays') {
    const time = clockTime(second);
    if (!time) throw badWhen(`${first} ${second}`);
    const days = word === 'daily' ? '*' : '1-5';
    const spec: ScheduleSpec = { kind: 'cron', cron: `${time.minute} ${time.hour} * * ${days}`, timezone };
    return { spec, label: `${word} ${second}`, prompt: needPrompt(prompt) };
  }
  throw badWhen(text.split(/\s+/).slice(0, 2).join(' '));
}

function needPrompt(prompt: string | undefined): string {
  const text = (prompt ?? '').trim();
  if (!text)
    throw new SwitchboardError(
      'INVALID_SCHEDULE',
      'Say what to do after the time, e.g. /schedule daily 09:00 check the build.',
    );
  if (text.length > 4_000)
    throw new SwitchboardError(
      'INVALID_SCHEDULE',
      `The prompt is ${text.length} characters; keep it under 4,000.`,
    );
  return text;
}

function checkCron(spec: Extract<ScheduleSpec, { kind: 'cron' }>): void {
  try {
    cronOf(spec);
  } catch (err) {
    throw new SwitchboardError(
      'INVALID_SCHEDULE',
      `"${spec.cron.slice(0, 60)}" is not a cron expression I can use (${err instanceof Error ? err.message : String(err)}).`,
    );
  }
}

function cronOf(spec: Extract<ScheduleSpec, { kind: 'cron' }>): Cron {
  // legacyMode: day-of-month and weekday combine with OR, as in Vixie cron and crontab(5).
  return new Cron(spec.cron, { timezone: spec.timezone, paused: true, legacyMode: true });
}

/**
 * The first run strictly after `after`, or undefined when there is none (a
 * one-off that has run). An `every` schedule keeps its phase: runs are
 * `from + k * period`.
 */
export function nextRun(spec: ScheduleSpec, after: number): number | undefined {
  switch (spec.kind) {
    case 'once':
      return spec.at > after ? spec.at : undefined;
    case 'every': {
      if (spec.from > after) return spec.from;
      const k = Math.floor((after - spec.from) / spec.everyMs) + 1;
      return spec.from + k * spec.everyMs;
    }
    case 'cron':
      return cronOf(spec).nextRun(new Date(after))?.getTime();
  }
}

/** `2026-03-29 09:00 Europe/Berlin`: a run's time in the chat's zone. */
export function describeTime(at: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(at));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${timezone}`;
}
