/**
 * The bot core's own state: the chat map (chat key -> session), the most
 * recent delivery ids and the turns in flight (for crash notices). Each kind
 * is an append-only journal in `dir` (`chats.jsonl`, `deliveries.jsonl`,
 * `turns.jsonl`), so a change costs one appended line however many chats
 * there are. Old whole-file state (`chats.json`, ...) is migrated on open. A
 * damaged state file is logged, moved aside and started empty: unlike a
 * session it holds no conversation, and the bot must come up.
 */
import { mkdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import { Journal, readJournal } from './bot-state-journal.js';
import {
  BotState,
  chatLine,
  deliveryLine,
  legacySchemas,
  turnBeginLine,
  turnEndLine,
} from './bot-state-model.js';
import { errorCode, moveAside, PRIVATE_DIR_MODE, writeFailure } from './fs-util.js';
import type { ActiveTurn, BotStateStore, ChatBinding } from './types.js';

/** Options of {@link createBotStateStore}. */
export interface BotStateStoreOptions {
  logger?: Logger;
  /** Time for the names of state files moved aside. */
  clock?: Clock;
  /** How many recent delivery ids are remembered (default 2,000). */
  deliveryWindow?: number;
}

type Kind = 'chats' | 'deliveries' | 'turns';

/** Where a change goes after memory is updated: one journal line of its kind. */
type Persist = (kind: Kind, line: () => string) => Promise<void>;

/**
 * Keeps the state in memory and hands each change to `persist`. Shared by the
 * file store and the memory store so both behave the same.
 */
function stateStore(ready: Promise<BotState>, persist: Persist, flush: () => Promise<void>): BotStateStore {
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
      const copy = { ...binding };
      state.chats.set(chat, copy);
      await persist('chats', () => chatLine(chat, copy));
    },
    async listChats() {
      return [...(await ready).chats].map(
        ([chat, binding]) => [chat, { ...binding }] as [string, typeof binding],
      );
    },
    async markDelivered(deliveryId) {
      const state = await ready;
      if (!state.deliveries.add(deliveryId)) return false;
      await persist('deliveries', () => deliveryLine(deliveryId));
      return true;
    },
    async beginTurn(turn) {
      const state = await ready;
      const copy = { ...turn };
      state.turns.set(turn.chat, copy);
      await persist('turns', () => turnBeginLine(copy));
    },
    async endTurn(chat) {
      const state = await ready;
      if (!state.turns.delete(chat)) return;
      await persist('turns', () => turnEndLine(chat));
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

/** How each kind is read, replayed and snapshotted. */
const kinds: Record<
  Kind,
  {
    apply: (state: BotState, value: unknown) => boolean;
    lines: (state: BotState) => string[];
    live: (state: BotState) => number;
    migrate: (state: BotState, legacy: unknown) => void;
  }
> = {
  chats: {
    apply: (s, v) => s.applyChatLine(v),
    lines: (s) => s.chatLines(),
    live: (s) => s.chats.size,
    migrate: (s, legacy) => {
      for (const [chat, binding] of Object.entries((legacy as z.infer<typeof legacySchemas.chats>).chats)) {
        s.chats.set(chat, binding as ChatBinding);
      }
    },
  },
  deliveries: {
    apply: (s, v) => s.applyDeliveryLine(v),
    lines: (s) => s.deliveryLines(),
    live: (s) => s.deliveries.size,
    migrate: (s, legacy) => {
      for (const id of (legacy as z.infer<typeof legacySchemas.deliveries>).ids) s.deliveries.add(id);
    },
  },
  turns: {
    apply: (s, v) => s.applyTurnLine(v),
    lines: (s) => s.turnLines(),
    live: (s) => s.turns.size,
    migrate: (s, legacy) => {
      for (const turn of Object.values((legacy as z.infer<typeof legacySchemas.turns>).turns)) {
        s.turns.set(turn.chat, turn as ActiveTurn);
      }
    },
  },
};

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
  const state = new BotState(Math.max(1, options.deliveryWindow ?? 2000));
  const journals = {} as Record<Kind, Journal>;

  async function damaged(path: string, reason: string): Promise<void> {
    const aside = await moveAside(path, clock.now());
    logger.error({ path, aside, reason }, 'bot state file is damaged: moved aside, starting it empty');
  }

  /** Reads the pre-journal file of `kind`; undefined when there is none or it was damaged (moved aside). */
  async function readLegacy(kind: Kind): Promise<unknown> {
    const path = join(dir, `${kind}.json`);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return undefined;
      if (errorCode(err) !== 'EISDIR') throw err;
      text = '';
    }
    let reason: string;
    try {
      const parsed = legacySchemas[kind].safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      reason = 'not a switchboard state file';
    } catch {
      reason = text.length === 0 ? 'empty file' : 'unparsable JSON';
    }
    await damaged(path, reason);
    return undefined;
  }

  async function open(kind: Kind): Promise<void> {
    const spec = kinds[kind];
    const path = join(dir, `${kind}.jsonl`);
    const legacyPath = join(dir, `${kind}.json`);
    const found = await readJournal(path, (value) => spec.apply(state, value));
    const journal = new Journal(path, {
      snapshot: () => spec.lines(state),
      liveCount: () => spec.live(state),
      lines: found.status === 'ok' ? found.lines : 0,
    });
    journals[kind] = journal;
    if (found.status === 'damaged') {
      // Lines applied before the damaged one are dropped too: that kind starts empty, as promised.
      clearKind(kind);
      await damaged(path, found.reason);
    }
    if (found.status === 'ok') {
      if (found.trimmed > 0) {
        logger.warn(
          { path, bytes: found.trimmed },
          'bot state journal ended in a torn line (a crash mid-write): trimmed it',
        );
      }
      // A journal beside an old file means a migration wrote the journal and stopped before removing it.
      await unlink(legacyPath).catch((err: unknown) => {
        if (errorCode(err) !== 'ENOENT') throw err;
      });
      return;
    }
    const legacy = found.status === 'missing' ? await readLegacy(kind) : undefined;
    if (legacy === undefined) return;
    spec.migrate(state, legacy);
    await journal.rewrite();
    await unlink(legacyPath);
    logger.info({ path, entries: spec.live(state) }, 'bot state migrated to a journal');
  }

  function clearKind(kind: Kind): void {
    if (kind === 'chats') state.chats.clear();
    else if (kind === 'turns') state.turns.clear();
    else state.resetDeliveries();
  }

  const ready = (async (): Promise<BotState> => {
    try {
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      for (const kind of ['chats', 'deliveries', 'turns'] as const) await open(kind);
    } catch (err) {
      throw writeFailure(logger, err, 'bot state (opening the directory)', dir);
    }
    return state;
  })();
  // A failed start is reported by every call that awaits it, not as an unhandled rejection.
  ready.catch(() => undefined);

  const persist: Persist = async (kind, line) => {
    try {
      await journals[kind].append(line());
    } catch (err) {
      throw writeFailure(logger, err, `bot state (${kind}.jsonl)`, dir);
    }
  };

  return stateStore(ready, persist, async () => {
    await Promise.all(Object.values(journals).map((j) => j.idle()));
  });
}

/** The same state in memory only (tests, benchmarks, the console bot). */
export function createMemoryBotStateStore(options: { deliveryWindow?: number } = {}): BotStateStore {
  const ready = Promise.resolve(new BotState(Math.max(1, options.deliveryWindow ?? 2000)));
  return stateStore(
    ready,
    async () => undefined,
    async () => undefined,
  );
}
