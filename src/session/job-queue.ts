/**
 * The session's work queue: turns and compactions run one at a time, in
 * order, up to a bound. Every job's `completed` promise settles — with the
 * result, the job's error, ABORTED when the queue is cleared, or QUEUE_FULL
 * — and never becomes an unhandled rejection when nobody awaits it.
 */
import { SwitchboardError } from '../errors.js';

/** Default bound of the queue (design.md: session queue 32). */
export const DEFAULT_QUEUE_LIMIT = 32;

interface QueuedJob {
  run: (signal: AbortSignal) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  done: () => void;
}

/** What {@link JobQueue.push} gives back. */
export interface Enqueued<T> {
  /** Settles with the job's outcome. */
  completed: Promise<T>;
  /** Resolves when the job has finished (or was dropped), whatever the outcome. */
  settled: Promise<void>;
  /** False when the queue was full and the job was dropped. */
  accepted: boolean;
  /** True when the job started at once (the queue was idle). */
  startedNow: boolean;
}

/** Runs jobs one at a time; see the module comment. */
export class JobQueue {
  readonly #limit: number;
  readonly #queue: QueuedJob[] = [];
  #busy = false;
  #current: AbortController | undefined;

  constructor(limit = DEFAULT_QUEUE_LIMIT) {
    this.#limit = limit;
  }

  /** Whether a job is running. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Jobs waiting behind the running one. */
  get size(): number {
    return this.#queue.length;
  }

  /** Adds a job; it gets an AbortSignal that {@link abortCurrent} fires. */
  push<T>(run: (signal: AbortSignal) => Promise<T>): Enqueued<T> {
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const completed = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Callers may ignore `completed`; its rejection must not crash the process.
    completed.catch(() => undefined);
    let done!: () => void;
    const settled = new Promise<void>((res) => {
      done = res;
    });
    if (this.#busy && this.#queue.length >= this.#limit) {
      reject(
        new SwitchboardError(
          'QUEUE_FULL',
          `Too many messages are waiting (${this.#limit}); this one was dropped. Wait for the current reply or use /stop.`,
          { detail: { limit: this.#limit } },
        ),
      );
      done();
      return { completed, settled, accepted: false, startedNow: false };
    }
    const startedNow = !this.#busy;
    this.#queue.push({ run, resolve: resolve as (value: unknown) => void, reject, done });
    if (startedNow) void this.#pump();
    return { completed, settled, accepted: true, startedNow };
  }

  /** Rejects every waiting job with ABORTED; returns how many there were. */
  clear(): number {
    const dropped = this.#queue.splice(0);
    for (const job of dropped) {
      job.reject(
        new SwitchboardError('ABORTED', 'Cancelled: the session was stopped before this message ran.'),
      );
      job.done();
    }
    return dropped.length;
  }

  /** Fires the running job's AbortSignal. */
  abortCurrent(): void {
    this.#current?.abort(new SwitchboardError('ABORTED', 'Stopped by the user.'));
  }

  async #pump(): Promise<void> {
    this.#busy = true;
    for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
      const controller = new AbortController();
      this.#current = controller;
      try {
        job.resolve(await job.run(controller.signal));
      } catch (err) {
        job.reject(err);
      } finally {
        this.#current = undefined;
        job.done();
      }
    }
    this.#busy = false;
  }
}
