/**
 * The scheduler: makes, lists and removes schedules, and when its trigger
 * says a run is due, claims it in the store (so it runs once however many
 * replicas were woken, and however often) and hands it to `fire`. A run
 * found overdue by more than the grace (missed while no replica was up) is
 * skipped with a line in its chat.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { SwitchboardError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BusyMode, Schedule, ScheduleStore, ScheduleTrigger } from './types.js';
import { describeTime, isTimeZone, nextRun, parseSchedule } from './when.js';

/** Default grace for a run missed while no replica was up: one hour. */
export const DEFAULT_SCHEDULE_GRACE_MS = 3_600_000;
/** Most schedules one chat may hold. */
export const MAX_SCHEDULES_PER_CHAT = 50;

/** What the scheduler is built from. */
export interface SchedulerOptions {
  store: ScheduleStore;
  trigger: ScheduleTrigger;
  /** The bot's time zone (`SWITCHBOARD_TIMEZONE`); default UTC. */
  timezone?: string;
  /** The bot's busy mode (`SWITCHBOARD_BUSY`); default steer. */
  busy?: BusyMode;
  /** How late a missed run may still run; default one hour. */
  graceMs?: number;
  /** Runs a claimed schedule: posts its line and queues its turn. */
  fire: (schedule: Schedule, runAt: number) => Promise<void>;
  /** Says a line in a chat (a skipped run). */
  tell: (chat: string, text: string) => void;
  clock: Clock;
  logger: Logger;
}

/** Who asks for a schedule. */
export interface ScheduleMaker {
  chat: string;
  maker: string;
  makerName: string;
  owner: string;
}

/** Schedules of every chat, fired through a trigger. */
export class Scheduler {
  readonly #o: SchedulerOptions;

  constructor(options: SchedulerOptions) {
    if (options.timezone !== undefined && !isTimeZone(options.timezone))
      throw new SwitchboardError(
        'CONFIG_INVALID',
        `SWITCHBOARD_TIMEZONE "${options.timezone}" is not an IANA time zone; use a name like Europe/Berlin or UTC.`,
      );
    this.#o = options;
  }

  /** Starts firing; runs missed while the bot was down are run or skipped now. */
  start(): Promise<void> {
    return this.#o.trigger.start((id, runAt) => this.#due(id, runAt));
  }

  /** Stops firing (runs already queued go on). */
  stop(): Promise<void> {
    return this.#o.trigger.stop();
  }

  /** The chat's time zone: its own, else the bot's. */
  async timezone(chat: string): Promise<string> {
    return (await this.#o.store.chatSettings(chat)).timezone ?? this.#o.timezone ?? 'UTC';
  }

  /** Sets the chat's time zone (existing calendar schedules keep theirs). */
  async setTimezone(chat: string, timezone: string): Promise<void> {
    if (!isTimeZone(timezone))
      throw new SwitchboardError(
        'INVALID_SCHEDULE',
        `"${timezone.slice(0, 64)}" is not an IANA time zone; use a name like Europe/Berlin, America/New_York or UTC.`,
      );
    const settings = await this.#o.store.chatSettings(chat);
    await this.#o.store.setChatSettings(chat, { ...settings, timezone });
  }

  /** The chat's busy mode: its own, else the bot's. */
  async busyMode(chat: string): Promise<BusyMode> {
    return (await this.#o.store.chatSettings(chat)).busy ?? this.#o.busy ?? 'steer';
  }

  /** Sets the chat's busy mode. */
  async setBusyMode(chat: string, busy: BusyMode): Promise<void> {
    const settings = await this.#o.store.chatSettings(chat);
    await this.#o.store.setChatSettings(chat, { ...settings, busy });
  }

  /**
   * Makes a schedule from `/schedule` arguments.
   *
   * @throws SwitchboardError `INVALID_SCHEDULE` with what to type instead.
   */
  async create(who: ScheduleMaker, args: string): Promise<Schedule> {
    const { store, trigger, clock } = this.#o;
    const now = clock.now();
    const timezone = await this.timezone(who.chat);
    const parsed = parseSchedule(args, now, timezone);
    const first = nextRun(parsed.spec, now);
    if (first === undefined)
      throw new SwitchboardError('INVALID_SCHEDULE', `"${parsed.label}" never comes; pick a time that does.`);
    if ((await store.list(who.chat)).length >= MAX_SCHEDULES_PER_CHAT)
      throw new SwitchboardError(
        'INVALID_SCHEDULE',
        `This chat has ${MAX_SCHEDULES_PER_CHAT} schedules already; remove one with /unschedule <id> first.`,
      );
    let id = randomBytes(3).toString('hex');
    while (await store.get(id)) id = randomBytes(3).toString('hex');
    const schedule: Schedule = {
      id,
      ...who,
      prompt: parsed.prompt,
      label: parsed.label,
      spec: parsed.spec,
      createdAt: now,
      nextRunAt: first,
    };
    await store.add(schedule);
    await trigger.planned(schedule);
    this.#o.logger.info({ chat: who.chat, schedule: schedule.id, nextRunAt: first }, 'schedule made');
    return schedule;
  }

  /** The chat's schedules, soonest first. */
  async list(chat: string): Promise<Schedule[]> {
    return (await this.#o.store.list(chat)).sort((a, b) => a.nextRunAt - b.nextRunAt);
  }

  /**
   * Removes schedule `id` of `chat` for `user`: its maker or an admin.
   * Returns the line to answer with.
   */
  async remove(chat: string, id: string, user: string, isAdmin: boolean): Promise<string> {
    const { store, trigger } = this.#o;
    const schedule = await store.get(id.trim().toLowerCase());
    if (!schedule || schedule.chat !== chat)
      return `No schedule "${id.slice(0, 20)}" in this chat; /schedules lists them.`;
    if (schedule.maker !== user && !isAdmin)
      return `Only ${schedule.makerName} (who made it) or an admin can remove schedule ${schedule.id}.`;
    await store.remove(schedule.id);
    await trigger.cancelled(schedule.id);
    return `Removed schedule ${schedule.id} (${schedule.label}: ${schedule.prompt.slice(0, 80)}).`;
  }

  /** The line that confirms a new schedule: its id and next run. */
  async confirmation(schedule: Schedule): Promise<string> {
    const zone = await this.timezone(schedule.chat);
    return `Scheduled ${schedule.id} (${schedule.label}); next run ${describeTime(schedule.nextRunAt, zone)}. /unschedule ${schedule.id} removes it.`;
  }

  /** A run's time as the chat reads it. */
  describe(at: number, timezone: string): string {
    return describeTime(at, timezone);
  }

  async #due(id: string, runAt: number): Promise<void> {
    const { store, trigger, clock, logger } = this.#o;
    const schedule = await store.get(id);
    if (!schedule || schedule.nextRunAt !== runAt) return;
    const now = Math.max(clock.now(), runAt);
    const following = nextRun(schedule.spec, now);
    // The claim: only the caller that moves the schedule on runs it.
    if (!(await store.advance(id, runAt, following))) return;
    if (following !== undefined) await trigger.planned({ ...schedule, nextRunAt: following });
    const late = clock.now() - runAt;
    const grace = this.#o.graceMs ?? DEFAULT_SCHEDULE_GRACE_MS;
    if (late > grace) {
      logger.warn({ chat: schedule.chat, schedule: id, lateMs: late }, 'scheduled run missed; skipped');
      const zone =
        schedule.spec.kind === 'cron' ? schedule.spec.timezone : await this.timezone(schedule.chat);
      this.#o.tell(
        schedule.chat,
        `⏰ Skipped the run of ${describeTime(runAt, zone)} (schedule ${id}: ${schedule.prompt.slice(0, 80)}): the bot was not running then.`,
      );
      return;
    }
    logger.info({ chat: schedule.chat, schedule: id }, 'scheduled run');
    await this.#o.fire(schedule, runAt);
  }
}
