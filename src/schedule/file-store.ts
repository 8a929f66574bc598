/**
 * Schedules on the file store: one small JSON file in the data directory
 * (`schedules.json`), rewritten whole and atomically after each change, so a
 * crash leaves the old file or the new one, never half of either. One
 * process owns the data directory, so claims need no lock: memory is the
 * truth and each change is written before the caller goes on.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { atomicWrite, errorCode, moveAside, PRIVATE_DIR_MODE, WriteChains } from '../store/fs-util.js';
import { BUSY_MODES, type ChatSettings, type Schedule, type ScheduleStore } from './types.js';

const specSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('once'), at: z.number() }),
  z.object({ kind: z.literal('every'), everyMs: z.number().positive(), from: z.number() }),
  z.object({ kind: z.literal('cron'), cron: z.string(), timezone: z.string() }),
]);

const scheduleSchema = z.object({
  id: z.string(),
  chat: z.string(),
  maker: z.string(),
  makerName: z.string(),
  owner: z.string(),
  prompt: z.string(),
  label: z.string(),
  spec: specSchema,
  createdAt: z.number(),
  nextRunAt: z.number(),
});

const fileSchema = z.object({
  version: z.literal(1),
  schedules: z.array(scheduleSchema),
  chats: z.record(
    z.string(),
    z.object({ timezone: z.string().optional(), busy: z.enum(BUSY_MODES).optional() }),
  ),
});

/** The file's content in memory (what the schema checks, with the optional fields as the store's types have them). */
interface FileShape {
  version: 1;
  schedules: Schedule[];
  chats: Record<string, ChatSettings>;
}

/** Options of {@link createFileScheduleStore}. */
export interface FileScheduleStoreOptions {
  logger?: Logger;
  /** Time for the name of a damaged file moved aside. */
  clock?: Clock;
}

/** The schedules of a data directory, in `<dir>/schedules.json`. */
export function createFileScheduleStore(dir: string, options: FileScheduleStoreOptions = {}): ScheduleStore {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const path = join(dir, 'schedules.json');
  const writes = new WriteChains();
  const ready = load(path, logger, clock.now());
  ready.catch(() => undefined);

  const save = async (state: FileShape) => {
    const text = `${JSON.stringify(state, null, 2)}\n`;
    await writes.run('schedules', async () => {
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      await atomicWrite(path, text);
    });
  };

  return {
    async list(chat) {
      const { schedules } = await ready;
      return schedules.filter((s) => chat === undefined || s.chat === chat).map((s) => ({ ...s }));
    },
    async get(id) {
      const found = (await ready).schedules.find((s) => s.id === id);
      return found ? { ...found } : undefined;
    },
    async add(schedule) {
      const state = await ready;
      state.schedules.push({ ...schedule });
      await save(state);
    },
    async remove(id) {
      const state = await ready;
      const before = state.schedules.length;
      state.schedules = state.schedules.filter((s) => s.id !== id);
      if (state.schedules.length === before) return false;
      await save(state);
      return true;
    },
    async advance(id, from, to) {
      const state = await ready;
      const found = state.schedules.find((s) => s.id === id);
      if (!found || found.nextRunAt !== from) return false;
      if (to === undefined) state.schedules = state.schedules.filter((s) => s !== found);
      else found.nextRunAt = to;
      await save(state);
      return true;
    },
    async chatSettings(chat) {
      return { ...(await ready).chats[chat] };
    },
    async setChatSettings(chat, settings: ChatSettings) {
      const state = await ready;
      state.chats[chat] = { ...settings };
      await save(state);
    },
    async flush() {
      await writes.flush();
    },
  };
}

async function load(path: string, logger: Logger, now: number): Promise<FileShape> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return { version: 1, schedules: [], chats: {} };
    throw err;
  }
  const parsed = fileSchema.safeParse(safeJson(text));
  if (parsed.success) return parsed.data as FileShape;
  // A damaged file must not keep the bot from starting: kept aside for a person to read, then empty.
  const aside = await moveAside(path, now);
  logger.error({ path, aside }, 'schedules file is damaged; moved aside and started empty');
  return { version: 1, schedules: [], chats: {} };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
