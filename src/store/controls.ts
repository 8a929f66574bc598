/**
 * The team controls' small shared state: dollar counters (what was spent per
 * person, chat and period, and budget extensions), one-time flags (a warning
 * said once per cap and period, an extension granted once) and settings (a
 * chat's own cap, stored rules). Files keep it in one append-only journal,
 * `controls.jsonl` in the data directory; PostgreSQL keeps it in tables all
 * replicas share (`postgres/controls-store.ts`). A damaged journal is moved
 * aside and started empty, like the rest of the bot's state: spend is
 * recounted from then on rather than the bot refusing to start.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { Journal, readJournal } from './bot-state-journal.js';
import { moveAside, PRIVATE_DIR_MODE } from './fs-util.js';

/**
 * Counters, flags and settings by key. Every call is one atomic change, so
 * replicas sharing a database never lose one another's spend.
 */
export interface ControlsStore {
  /** Adds each amount to its counter (a counter starts at 0). */
  add(amounts: Readonly<Record<string, number>>): Promise<void>;
  /** The counters' values; 0 for a counter never added to. */
  read(keys: readonly string[]): Promise<Record<string, number>>;
  /** Sets a flag; true only for the first caller ever (across replicas). */
  claim(key: string): Promise<boolean>;
  /** A stored setting, or undefined. */
  getSetting(key: string): Promise<unknown>;
  /** Stores a setting; `undefined` removes it. */
  setSetting(key: string, value: unknown): Promise<void>;
  /** Every setting whose key starts with `prefix`, oldest first. */
  listSettings(prefix: string): Promise<Array<[key: string, value: unknown]>>;
  /** Waits for pending writes. */
  flush(): Promise<void>;
}

/** Options of {@link createControlsStore}. */
export interface ControlsStoreOptions {
  logger?: Logger;
  /** Time for the name of a damaged journal moved aside. */
  clock?: Clock;
}

/** The live state; a journal line is one change to it. */
class ControlsState {
  readonly counters = new Map<string, number>();
  readonly flags = new Set<string>();
  readonly settings = new Map<string, unknown>();

  /** Applies one journal line; false when it is not one of ours. */
  apply(line: unknown): boolean {
    if (typeof line !== 'object' || line === null) return false;
    const entry = line as { add?: unknown; flag?: unknown; set?: unknown; value?: unknown };
    if (entry.add && typeof entry.add === 'object') {
      for (const [key, value] of Object.entries(entry.add)) {
        if (typeof value !== 'number' || !Number.isFinite(value)) return false;
        this.counters.set(key, (this.counters.get(key) ?? 0) + value);
      }
      return true;
    }
    if (typeof entry.flag === 'string') {
      this.flags.add(entry.flag);
      return true;
    }
    if (typeof entry.set === 'string') {
      if (entry.value === undefined) this.settings.delete(entry.set);
      else this.settings.set(entry.set, entry.value);
      return true;
    }
    return false;
  }

  /** The whole state as journal lines. */
  lines(): string[] {
    const out: string[] = [];
    if (this.counters.size) out.push(JSON.stringify({ add: Object.fromEntries(this.counters) }));
    for (const flag of this.flags) out.push(JSON.stringify({ flag }));
    for (const [set, value] of this.settings) out.push(JSON.stringify({ set, value }));
    return out;
  }

  get size(): number {
    return 1 + this.flags.size + this.settings.size;
  }
}

/** A store over `state` whose changes go to `persist` (one journal line each). */
function storeOver(
  ready: Promise<ControlsState>,
  persist: (line: string) => Promise<void>,
  flush: () => Promise<void>,
): ControlsStore {
  const change = async (line: Record<string, unknown>) => {
    const state = await ready;
    state.apply(line);
    await persist(JSON.stringify(line));
  };
  return {
    add: (amounts) => change({ add: { ...amounts } }),
    async read(keys) {
      const state = await ready;
      return Object.fromEntries(keys.map((k) => [k, state.counters.get(k) ?? 0]));
    },
    async claim(key) {
      const state = await ready;
      if (state.flags.has(key)) return false;
      await change({ flag: key });
      return true;
    },
    async getSetting(key) {
      return (await ready).settings.get(key);
    },
    setSetting: (key, value) => change({ set: key, ...(value === undefined ? {} : { value }) }),
    async listSettings(prefix) {
      return [...(await ready).settings].filter(([key]) => key.startsWith(prefix));
    },
    async flush() {
      await ready;
      await flush();
    },
  };
}

/**
 * The controls in `dir/controls.jsonl` (one process).
 *
 * @example
 * const controls = createControlsStore('./data', { logger });
 * await controls.add({ 'spent:chat:telegram:1:2026-12-02': 0.12 });
 */
export function createControlsStore(dir: string, options: ControlsStoreOptions = {}): ControlsStore {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const state = new ControlsState();
  const path = join(dir, 'controls.jsonl');
  let journal: Journal | undefined;
  const ready = (async () => {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const found = await readJournal(path, (line) => state.apply(line));
    if (found.status === 'damaged') {
      state.counters.clear();
      state.flags.clear();
      state.settings.clear();
      const aside = await moveAside(path, clock.now());
      logger.error(
        { path, aside, reason: found.reason },
        'controls file is damaged: moved aside, starting it empty',
      );
    }
    journal = new Journal(path, {
      snapshot: () => state.lines(),
      liveCount: () => state.size,
      lines: found.status === 'ok' ? found.lines : 0,
    });
    return state;
  })();
  return storeOver(
    ready,
    (line) => (journal as Journal).append(line),
    async () => journal?.idle(),
  );
}

/** The controls in memory only (tests, a bot without a data directory). */
export function createMemoryControlsStore(): ControlsStore {
  return storeOver(
    Promise.resolve(new ControlsState()),
    async () => {},
    async () => {},
  );
}
