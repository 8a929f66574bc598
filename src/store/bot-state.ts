/**
 * The bot core's own state in three small lowdb files: `chats.json` (chat key
 * -> session), `deliveries.json` (the most recent delivery ids) and
 * `turns.json` (turns in flight, for crash notices). Each is rewritten only
 * when it changes; lowdb coalesces writes that overlap. A damaged state file
 * is logged, moved aside and started empty: unlike a session it holds no
 * conversation, and the bot must come up.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { errorCode, moveAside, writeFailure } from './fs-util.js';
import type { ActiveTurn, BotStateStore, ChatBinding } from './types.js';

/** Options of {@link createBotStateStore}. */
export interface BotStateStoreOptions {
  logger?: Logger;
  /** Time for the names of state files moved aside. */
  clock?: Clock;
  /** How many recent delivery ids are remembered (default 2,000). */
  deliveryWindow?: number;
}

const bindingSchema = z.looseObject({
  sessionId: z.string(),
  owner: z.string().optional(),
  updatedAt: z.string(),
});
const turnSchema = z.looseObject({
  chat: z.string(),
  sessionId: z.string(),
  startedAt: z.string(),
  replyMessageId: z.string().optional(),
});
const chatsSchema = z.object({ version: z.literal(1), chats: z.record(z.string(), bindingSchema) });
const deliveriesSchema = z.object({ version: z.literal(1), ids: z.array(z.string()) });
const turnsSchema = z.object({ version: z.literal(1), turns: z.record(z.string(), turnSchema) });

interface ChatsFile {
  version: 1;
  chats: Record<string, ChatBinding>;
}
interface DeliveriesFile {
  version: 1;
  ids: string[];
}
interface TurnsFile {
  version: 1;
  turns: Record<string, ActiveTurn>;
}

/** The state the store keeps in memory; the files mirror it. */
interface State {
  chats: Map<string, ChatBinding>;
  deliveries: string[];
  seen: Set<string>;
  turns: Map<string, ActiveTurn>;
}

/**
 * Keeps the state in memory and calls `persist` with the part that changed.
 * Shared by the file store and the memory store so both behave the same.
 */
function stateStore(
  ready: Promise<State>,
  window: number,
  persist: (part: 'chats' | 'deliveries' | 'turns', state: State) => Promise<void>,
  flush: () => Promise<void>,
): BotStateStore {
  return {
    async getChat(chat) {
      const binding = (await ready).chats.get(chat);
      return binding ? { ...binding } : undefined;
    },
    async setChat(chat, binding) {
      const state = await ready;
      const current = state.chats.get(chat);
      // Written only when the mapping changes, not each time a chat is touched.
      if (current && current.sessionId === binding.sessionId && current.owner === binding.owner) return;
      state.chats.set(chat, { ...binding });
      await persist('chats', state);
    },
    async listChats() {
      return [...(await ready).chats].map(
        ([chat, binding]) => [chat, { ...binding }] as [string, ChatBinding],
      );
    },
    async markDelivered(deliveryId) {
      const state = await ready;
      if (state.seen.has(deliveryId)) return false;
      state.seen.add(deliveryId);
      state.deliveries.push(deliveryId);
      while (state.deliveries.length > window) state.seen.delete(state.deliveries.shift() as string);
      await persist('deliveries', state);
      return true;
    },
    async beginTurn(turn) {
      const state = await ready;
      state.turns.set(turn.chat, { ...turn });
      await persist('turns', state);
    },
    async endTurn(chat) {
      const state = await ready;
      if (!state.turns.delete(chat)) return;
      await persist('turns', state);
    },
    async activeTurns() {
      return [...(await ready).turns.values()].map((t) => ({ ...t }));
    },
    async flush() {
      await ready;
      await flush();
    },
  };
}

/**
 * The bot's state in `dir` (created if needed).
 *
 * @example
 * const state = createBotStateStore('./data/state', { logger });
 * if (!(await state.markDelivered(`telegram:${update.update_id}`))) return; // a redelivery
 */
export function createBotStateStore(dir: string, options: BotStateStoreOptions = {}): BotStateStore {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const window = Math.max(1, options.deliveryWindow ?? 2000);
  const chats = new Low<ChatsFile>(new JSONFile(join(dir, 'chats.json')), { version: 1, chats: {} });
  const deliveries = new Low<DeliveriesFile>(new JSONFile(join(dir, 'deliveries.json')), {
    version: 1,
    ids: [],
  });
  const turns = new Low<TurnsFile>(new JSONFile(join(dir, 'turns.json')), { version: 1, turns: {} });
  const pending = new Set<Promise<void>>();

  /** Reads one state file; a damaged one is logged, moved aside and replaced by `empty`. */
  async function read<T>(name: string, schema: z.ZodType, empty: T): Promise<T> {
    const path = join(dir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return empty;
      if (errorCode(err) !== 'EISDIR') throw err;
      text = '';
    }
    let reason: string;
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data as T;
      reason = 'not a switchboard state file';
    } catch {
      reason = text.length === 0 ? 'empty file' : 'unparsable JSON';
    }
    const aside = await moveAside(path, clock.now());
    logger.error({ path, aside, reason }, 'bot state file is damaged: moved aside, starting it empty');
    return empty;
  }

  const ready = (async (): Promise<State> => {
    let c: ChatsFile;
    let d: DeliveriesFile;
    let t: TurnsFile;
    try {
      await mkdir(dir, { recursive: true });
      c = await read<ChatsFile>('chats.json', chatsSchema, { version: 1, chats: {} });
      d = await read<DeliveriesFile>('deliveries.json', deliveriesSchema, { version: 1, ids: [] });
      t = await read<TurnsFile>('turns.json', turnsSchema, { version: 1, turns: {} });
    } catch (err) {
      throw writeFailure(logger, err, 'bot state (opening the directory)', dir);
    }
    const ids = d.ids.slice(-window);
    return {
      chats: new Map(Object.entries(c.chats)),
      deliveries: ids,
      seen: new Set(ids),
      turns: new Map(Object.entries(t.turns)),
    };
  })();
  // A failed start is reported by every call that awaits it, not as an unhandled rejection.
  ready.catch(() => undefined);

  const persist = async (part: 'chats' | 'deliveries' | 'turns', state: State): Promise<void> => {
    let write: Promise<void>;
    if (part === 'chats') {
      chats.data = { version: 1, chats: Object.fromEntries(state.chats) };
      write = chats.write();
    } else if (part === 'deliveries') {
      deliveries.data = { version: 1, ids: [...state.deliveries] };
      write = deliveries.write();
    } else {
      turns.data = { version: 1, turns: Object.fromEntries(state.turns) };
      write = turns.write();
    }
    const tracked = write.then(
      () => undefined,
      () => undefined,
    );
    pending.add(tracked);
    void tracked.then(() => pending.delete(tracked));
    try {
      await write;
    } catch (err) {
      throw writeFailure(logger, err, `bot state (${part}.json)`, dir);
    }
  };

  return stateStore(ready, window, persist, async () => {
    while (pending.size > 0) await Promise.all([...pending]);
  });
}

/** The same state in memory only (tests, benchmarks, the console bot). */
export function createMemoryBotStateStore(options: { deliveryWindow?: number } = {}): BotStateStore {
  const ready = Promise.resolve<State>({
    chats: new Map(),
    deliveries: [],
    seen: new Set(),
    turns: new Map(),
  });
  return stateStore(
    ready,
    Math.max(1, options.deliveryWindow ?? 2000),
    async () => undefined,
    async () => undefined,
  );
}
