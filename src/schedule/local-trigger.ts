/**
 * Runs due schedules in this process: one timer per schedule on the
 * injected clock. Used with the file store, where one process owns the data
 * directory; at start every schedule already past its run is handed over, so
 * the scheduler can run it late or skip it.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DueHandler, Schedule, ScheduleStore, ScheduleTrigger } from './types.js';

/** Timers longer than this are re-armed on the way (Node's timers stop at about 24.8 days). */
const MAX_WAIT_MS = 86_400_000;

/** A trigger of timers in this process over `store`'s schedules. */
export class LocalTrigger implements ScheduleTrigger {
  readonly #store: ScheduleStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #timers = new Map<string, TimerHandle>();
  #onDue: DueHandler | undefined;

  constructor(options: { store: ScheduleStore; clock: Clock; logger: Logger }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  async start(onDue: DueHandler): Promise<void> {
    this.#onDue = onDue;
    for (const schedule of await this.#store.list()) this.#arm(schedule.id, schedule.nextRunAt);
  }

  async planned(schedule: Schedule): Promise<void> {
    if (this.#onDue) this.#arm(schedule.id, schedule.nextRunAt);
  }

  async cancelled(id: string): Promise<void> {
    this.#disarm(id);
  }

  async stop(): Promise<void> {
    this.#onDue = undefined;
    for (const id of [...this.#timers.keys()]) this.#disarm(id);
  }

  #arm(id: string, runAt: number): void {
    this.#disarm(id);
    const wait = Math.max(0, runAt - this.#clock.now());
    const timer = this.#clock.setTimeout(
      () => {
        this.#timers.delete(id);
        if (wait > MAX_WAIT_MS) return this.#arm(id, runAt);
        const onDue = this.#onDue;
        if (!onDue) return;
        onDue(id, runAt).catch((err: unknown) => {
          this.#logger.error({ schedule: id, err: describeError(err) }, 'scheduled run failed');
        });
      },
      Math.min(wait, MAX_WAIT_MS),
    );
    this.#timers.set(id, timer);
  }

  #disarm(id: string): void {
    const timer = this.#timers.get(id);
    if (timer !== undefined) this.#clock.clearTimeout(timer);
    this.#timers.delete(id);
  }
}
