/**
 * Schedules and the per-chat settings that go with them, and the two parts a
 * scheduler is built from: a store that keeps them and a trigger that wakes
 * the scheduler when a run is due (timers in this process on the file store,
 * a PostgreSQL job queue shared by replicas).
 */
import type { ScheduleSpec } from './when.js';

/** One schedule made in a chat. */
export interface Schedule {
  /** Short id people type in /unschedule. */
  id: string;
  /** The chat key (thread or topic included) where it was made and where it runs. */
  chat: string;
  /** `platform:userId` of the person who made it: runs are theirs (approvals, usage). */
  maker: string;
  makerName: string;
  /** Owner key for a session the run creates. */
  owner: string;
  prompt: string;
  /** The rule as written (`daily 09:00`). */
  label: string;
  spec: ScheduleSpec;
  createdAt: number;
  /** The next run, ms since the epoch. */
  nextRunAt: number;
}

/** How a chat wants busy turns handled: see `SWITCHBOARD_BUSY`. */
export type BusyMode = 'steer' | 'queue' | 'interrupt';

/** The busy modes, for parsing and usage lines. */
export const BUSY_MODES: readonly BusyMode[] = ['steer', 'queue', 'interrupt'];

/** A chat's own settings; absent fields take the bot's defaults. */
export interface ChatSettings {
  timezone?: string;
  busy?: BusyMode;
}

/** Where schedules and chat settings are kept. */
export interface ScheduleStore {
  /** The chat's schedules, or every schedule when `chat` is undefined. */
  list(chat?: string): Promise<Schedule[]>;
  get(id: string): Promise<Schedule | undefined>;
  add(schedule: Schedule): Promise<void>;
  /** False when there was no such schedule. */
  remove(id: string): Promise<boolean>;
  /**
   * Claims the run at `from`: moves the schedule's next run to `to`, or
   * removes it when `to` is undefined. False when its next run is not `from`
   * any more (someone else claimed it, or it was removed): the run is not ours.
   */
  advance(id: string, from: number, to: number | undefined): Promise<boolean>;
  chatSettings(chat: string): Promise<ChatSettings>;
  setChatSettings(chat: string, settings: ChatSettings): Promise<void>;
  /** Waits for pending writes. */
  flush(): Promise<void>;
}

/** Called when the run of schedule `id` at `runAt` is due (or overdue). */
export type DueHandler = (id: string, runAt: number) => Promise<void>;

/** Wakes the scheduler when runs are due. */
export interface ScheduleTrigger {
  /** Starts waking `onDue`; runs already overdue are handed over at once. */
  start(onDue: DueHandler): Promise<void>;
  /** The schedule's next run is at `schedule.nextRunAt`. */
  planned(schedule: Schedule): Promise<void>;
  /** The schedule was removed. */
  cancelled(id: string): Promise<void>;
  stop(): Promise<void>;
}
