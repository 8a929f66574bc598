/**
 * Due runs across replicas, through pg-boss (a job queue on PostgreSQL):
 * each planned run is one job that starts after the run's time, with an id
 * made from the schedule and the time, so every replica that plans the same
 * run plans one job. pg-boss hands each job to one worker (`SKIP LOCKED`),
 * keeps jobs across restarts, and hands a job whose worker died to another
 * after it expires; the store's claim makes a job delivered twice run once.
 *
 * pg-boss 10 is the newest line that supports Node 20 (11 and later need
 * Node 22), runs on the `pg` driver the stores already use (through its
 * `db` option, so it shares their pool), and owns its tables in a schema of
 * its own. graphile-worker was the other candidate: its recurring tasks are
 * a fixed crontab read at start, and it brings a configuration system of its
 * own; one-off delayed jobs are all the scheduler needs.
 */
import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import { type Clock, sleep } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PgPool } from '../store/postgres/db.js';
import type { DueHandler, Schedule, ScheduleTrigger } from './types.js';

const QUEUE = 'switchboard-schedule-runs';

/** Options of {@link PgBossTrigger}. */
export interface PgBossTriggerOptions {
  pool: PgPool;
  /** pg-boss's own schema (default `<store schema>_jobs`). */
  schema: string;
  clock: Clock;
  logger: Logger;
  /** How often an idle replica asks for due jobs, in seconds (pg-boss's floor is 0.5); default 2. */
  pollingIntervalSeconds?: number;
}

interface RunJob {
  id: string;
  runAt: number;
}

/** The job id of schedule `id`'s run at `runAt`: the same on every replica. */
function jobId(id: string, runAt: number): string {
  const h = createHash('sha256').update(`${id}@${runAt}`).digest('hex');
  // Shaped as a version-5-style UUID (pg-boss ids are uuid).
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Wakes due runs through pg-boss jobs shared by every replica on the database. */
export class PgBossTrigger implements ScheduleTrigger {
  readonly #o: PgBossTriggerOptions;
  readonly #boss: PgBoss;
  readonly #stopping = new AbortController();
  #started = false;

  constructor(options: PgBossTriggerOptions) {
    this.#o = options;
    const { pool } = options;
    this.#boss = new PgBoss({
      db: { executeSql: (text, values) => pool.query(text, values) },
      schema: options.schema,
      // Runs are one-off jobs the scheduler plans itself: pg-boss's own cron stays off.
      schedule: false,
    });
    this.#boss.on('error', (err) => {
      options.logger.warn({ err: describeError(err) }, 'schedule job queue reported an error');
    });
  }

  async start(onDue: DueHandler): Promise<void> {
    const boss = this.#boss;
    await boss.start();
    this.#started = true;
    await boss.createQueue(QUEUE, { name: QUEUE, retryLimit: 5, retryDelay: 5 });
    await boss.work<RunJob>(
      QUEUE,
      { pollingIntervalSeconds: this.#o.pollingIntervalSeconds ?? 2, batchSize: 1 },
      async (jobs) => {
        for (const job of jobs) await this.#run(job.data, onDue);
      },
    );
  }

  async planned(schedule: Schedule): Promise<void> {
    const data: RunJob = { id: schedule.id, runAt: schedule.nextRunAt };
    await this.#boss.send(QUEUE, data, {
      id: jobId(schedule.id, schedule.nextRunAt),
      startAfter: new Date(schedule.nextRunAt),
    });
  }

  async cancelled(): Promise<void> {
    // The run's job stays: when it comes, the schedule is gone and it does nothing.
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    if (!this.#started) return;
    this.#started = false;
    await this.#boss.stop({ graceful: true, wait: true, close: false, timeout: 5_000 });
  }

  /**
   * The database's clock said the job may start; this replica's clock (the
   * one schedules are made with) waits for the rest of a small skew.
   */
  async #run(job: RunJob, onDue: DueHandler): Promise<void> {
    const { clock } = this.#o;
    const early = job.runAt - clock.now();
    if (early > 0) await sleep(clock, early, this.#stopping.signal);
    await onDue(job.id, job.runAt);
  }
}
