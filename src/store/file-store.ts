/**
 * The lowdb session store: per session a small record (`<id>.json`) and an
 * append-only messages file (`<id>.messages.jsonl`); optionally (project
 * store) an event log per session that rebuilds a missing record.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { type Logger, silentLogger } from '../logger.js';
import type { HistoryMessage } from '../vocabulary.js';
import { type EventLogs, isEmptyDiff, type LogEvent, loggedMeta, metaDiff } from './event-log.js';
import { exists, mapPool, moveAside, PRIVATE_DIR_MODE, WriteChains, writeFailure } from './fs-util.js';
import { validateSessionId } from './ids.js';
import { appendCommitted, messageLines, newEpoch, scanMessages, writeMessagesFile } from './messages-file.js';
import { readRecord, writeRecord } from './record-file.js';
import { checkMetaId, invalidData, refusal } from './refusals.js';
import { checkWritable, publicMeta, STORAGE_KEY, type StoredMeta } from './schema.js';
import { scanSessionDir } from './session-dir.js';
import {
  SESSION_SCHEMA_VERSION,
  type SessionMeta,
  type SessionRecord,
  type SessionStore,
  type StoreListEntry,
  type StoreOutcome,
} from './types.js';

/** Options of the file session stores. */
export interface SessionStoreOptions {
  /** Where write failures, repairs and corrupt files are reported. */
  logger?: Logger;
  /** Time for quarantine file names. */
  clock?: Clock;
  /** Record files `list()` reads at once (default 64). */
  readConcurrency?: number;
}

/** What the store knows about a session's committed state on disk. */
interface Committed {
  stored: StoredMeta;
  epoch: string;
  /** Committed length of the messages file. */
  bytes: number;
  count: number;
  logBytes: number | undefined;
}

type Inspection =
  | { status: 'valid'; committed: Committed; messages: HistoryMessage[] | undefined }
  | Exclude<StoreOutcome<never>, { status: 'valid' }>;

/** A {@link SessionStore} over a directory of lowdb records and JSONL messages. */
export class FileSessionStore implements SessionStore {
  readonly #dir: string;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #concurrency: number;
  readonly #logs: EventLogs | undefined;
  readonly #chains = new WriteChains();
  readonly #cache = new Map<string, Committed>();
  #dirReady: Promise<void> | undefined;

  constructor(dir: string, options: SessionStoreOptions = {}, logs?: EventLogs) {
    this.#dir = dir;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? systemClock;
    this.#concurrency = Math.max(1, options.readConcurrency ?? 64);
    this.#logs = logs;
  }

  /** Path of a session's record file. */
  recordPath(id: string): string {
    return join(this.#dir, `${id}.json`);
  }

  /** Path of a session's messages file. */
  messagesPath(id: string): string {
    return join(this.#dir, `${id}.messages.jsonl`);
  }

  async load(id: string): Promise<StoreOutcome<SessionRecord>> {
    validateSessionId(id);
    return this.#chains.run(id, async () => {
      const found = await this.#inspect(id, true, false);
      if (found.status !== 'valid') {
        if (found.status !== 'missing') this.#logger.warn({ id, outcome: found }, 'session cannot be loaded');
        return found;
      }
      const { committed } = found;
      const messages = found.messages ?? [];
      return {
        status: 'valid',
        record: { ...publicMeta(committed.stored), messageCount: messages.length, messages },
      };
    });
  }

  async list(): Promise<StoreListEntry[]> {
    // Writes already asked for are listed; a busy store's later writes must not starve the listing.
    await this.#chains.settled();
    const { records, others, strange } = await scanSessionDir(this.#dir, this.#logs?.dir);
    if (strange.length) this.#logger.warn({ dir: this.#dir, files: strange }, 'files that are not sessions');
    const entries = await mapPool(records, this.#concurrency, async (id): Promise<StoreListEntry> => {
      const outcome = await readRecord(this.recordPath(id), id);
      return {
        id,
        outcome: outcome.status === 'valid' ? { ...outcome, record: publicMeta(outcome.record) } : outcome,
      };
    });
    const known = new Set(records);
    for (const id of others) {
      if (known.has(id)) continue;
      // A log without a record is rebuilt; messages without a record are a create() that never finished.
      const loaded = this.#logs ? await this.load(id) : ({ status: 'missing' } as const);
      if (loaded.status === 'valid') {
        const { messages: _messages, ...meta } = loaded.record;
        entries.push({ id, outcome: { status: 'valid', record: meta } });
      } else entries.push({ id, outcome: loaded });
    }
    return entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async create(record: SessionRecord): Promise<void> {
    const id = validateSessionId(record.id);
    const { messages, ...meta } = record;
    const problem = checkWritable(meta, messages);
    if (problem) throw invalidData(id, problem);
    return this.#chains.run(id, async () => {
      const found = await this.#inspect(id, false, true);
      if (found.status === 'corrupt' || found.status === 'unsupported') throw refusal(id, found);
      try {
        await this.#ensureDirs();
        const fresh = {
          ...publicMeta(meta),
          version: SESSION_SCHEMA_VERSION,
          id,
          messageCount: messages.length,
        };
        const logBytes = this.#logs
          ? await this.#logs.reset(id, { type: 'create', meta: loggedMeta(fresh), messages })
          : undefined;
        const epoch = newEpoch();
        const bytes = await writeMessagesFile(this.messagesPath(id), epoch, messages);
        await this.#commit(id, fresh, { epoch, bytes, count: messages.length, logBytes });
      } catch (err) {
        throw writeFailure(this.#logger, err, `session ${id}`, this.#dir);
      }
    });
  }

  append(id: string, messages: HistoryMessage[], meta: SessionMeta): Promise<void> {
    return this.#write(id, meta, messages, async (c, next) => {
      const count = c.count + messages.length;
      const updated = { ...next, messageCount: count };
      const logBytes = await this.#log(id, c, {
        type: 'append',
        meta: metaDiff(c.stored, updated),
        messages,
      });
      const bytes = await appendCommitted(this.messagesPath(id), c.bytes, c.epoch, messageLines(messages));
      await this.#commit(id, updated, { epoch: c.epoch, bytes, count, logBytes });
    });
  }

  replace(id: string, messages: HistoryMessage[], meta: SessionMeta): Promise<void> {
    return this.#write(id, meta, messages, async (c, next) => {
      const updated = { ...next, messageCount: messages.length };
      const logBytes = await this.#log(id, c, {
        type: 'replace',
        meta: metaDiff(c.stored, updated),
        messages,
      });
      const epoch = newEpoch();
      const bytes = await writeMessagesFile(this.messagesPath(id), epoch, messages);
      await this.#commit(id, updated, { epoch, bytes, count: messages.length, logBytes });
    });
  }

  async updateMeta(meta: SessionMeta): Promise<void> {
    const id = validateSessionId(meta.id);
    return this.#write(id, meta, [], async (c, next) => {
      const updated = { ...next, messageCount: c.count };
      const diff = metaDiff(c.stored, updated);
      const logBytes = isEmptyDiff(diff) ? c.logBytes : await this.#log(id, c, { type: 'meta', meta: diff });
      await this.#commit(id, updated, { epoch: c.epoch, bytes: c.bytes, count: c.count, logBytes });
    });
  }

  async quarantine(id: string): Promise<string[]> {
    validateSessionId(id);
    return this.#chains.run(id, async () => {
      const paths = [this.recordPath(id), this.messagesPath(id)];
      if (this.#logs) paths.push(this.#logs.path(id));
      const now = this.#clock.now();
      const moved: string[] = [];
      try {
        for (const path of paths) if (await exists(path)) moved.push(await moveAside(path, now));
      } catch (err) {
        throw writeFailure(this.#logger, err, `quarantine of session ${id}`, this.#dir);
      } finally {
        this.#cache.delete(id);
      }
      this.#logger.warn({ id, moved }, 'session files moved aside');
      return moved;
    });
  }

  flush(): Promise<void> {
    return this.#chains.flush();
  }

  /** Common frame of append / replace / updateMeta: check, order, refuse, report. */
  async #write(
    id: string,
    meta: SessionMeta,
    messages: HistoryMessage[],
    body: (committed: Committed, next: SessionMeta) => Promise<void>,
  ): Promise<void> {
    validateSessionId(id);
    checkMetaId(id, meta);
    const problem = checkWritable(meta, messages);
    if (problem) throw invalidData(id, problem);
    return this.#chains.run(id, async () => {
      const found = await this.#inspect(id, false, true);
      if (found.status !== 'valid') throw refusal(id, found);
      const next = { ...publicMeta(meta), version: SESSION_SCHEMA_VERSION, id };
      try {
        await this.#ensureDirs();
        await body(found.committed, next);
      } catch (err) {
        throw writeFailure(this.#logger, err, `session ${id}`, this.#dir);
      }
    });
  }

  /** Writes the record that commits a write, then remembers what is committed. */
  async #commit(id: string, meta: SessionMeta, state: Omit<Committed, 'stored'>): Promise<void> {
    const storage = {
      epoch: state.epoch,
      ...(state.logBytes === undefined ? {} : { logBytes: state.logBytes }),
    };
    const stored: StoredMeta = { ...meta, [STORAGE_KEY]: storage };
    await writeRecord(this.recordPath(id), stored);
    this.#cache.set(id, { ...state, stored });
  }

  /** Appends an event to the project log (none for the user store); returns the log's new length. */
  async #log(id: string, c: Committed, event: LogEvent): Promise<number | undefined> {
    if (!this.#logs) return undefined;
    return this.#logs.record(id, event, c.logBytes, {
      meta: publicMeta(c.stored),
      // Only read when the log must start again: the committed messages it must hold.
      messages: async () => {
        const scan = await scanMessages(this.messagesPath(id), c.count, c.epoch);
        if (scan.status !== 'ok') throw refusal(id, { status: 'corrupt', reason: scan.reason });
        return scan.messages;
      },
      now: this.#clock.now(),
      logger: this.#logger,
    });
  }

  /**
   * Reads a session's committed state. Writers (`forWrite`) trust the cached
   * offsets when the record on disk still matches them, so a turn costs one
   * small read instead of a scan of the whole history.
   */
  async #inspect(id: string, withMessages: boolean, forWrite: boolean): Promise<Inspection> {
    const record = await readRecord(this.recordPath(id), id);
    if (record.status === 'missing') return this.#logs ? this.#rebuild(id, forWrite) : record;
    if (record.status !== 'valid') return record;
    const stored = record.record;
    const storage = stored[STORAGE_KEY];
    const cached = this.#cache.get(id);
    if (
      !withMessages &&
      cached !== undefined &&
      cached.count === stored.messageCount &&
      cached.epoch === storage?.epoch &&
      cached.logBytes === storage?.logBytes
    ) {
      return { status: 'valid', committed: { ...cached, stored }, messages: undefined };
    }
    const path = this.messagesPath(id);
    const scan = await scanMessages(path, stored.messageCount, storage?.epoch);
    if (scan.status === 'corrupt') return { status: 'corrupt', reason: scan.reason, path };
    if (scan.rolledForward) {
      this.#logger.warn(
        { id },
        'a compaction was cut short before its record was written: using its messages',
      );
    } else if (scan.uncommittedLines > 0) {
      this.#logger.info({ id, lines: scan.uncommittedLines }, 'ignoring uncommitted message lines');
    }
    const committed: Committed = {
      stored: scan.rolledForward ? { ...stored, messageCount: scan.messages.length } : stored,
      epoch: scan.epoch ?? storage?.epoch ?? newEpoch(),
      bytes: scan.committedBytes,
      count: scan.messages.length,
      // After a roll-forward the log's tail no longer matches the record: start the log again.
      logBytes: scan.rolledForward ? undefined : storage?.logBytes,
    };
    this.#cache.set(id, committed);
    return { status: 'valid', committed, messages: scan.messages };
  }

  /** Project store: rebuilds a missing record from the event log and writes it back. */
  async #rebuild(id: string, forWrite: boolean): Promise<Inspection> {
    const logs = this.#logs;
    if (!logs) return { status: 'missing' };
    const replay = await logs.replay(id);
    if (replay.status !== 'valid') return replay;
    const epoch = newEpoch();
    const count = replay.messages.length;
    const state = { epoch, bytes: 0, count, logBytes: replay.logBytes };
    try {
      await this.#ensureDirs();
      state.bytes = await writeMessagesFile(this.messagesPath(id), epoch, replay.messages);
      await this.#commit(id, replay.meta, state);
      this.#logger.warn({ id }, 'session record was missing: rebuilt from its event log');
    } catch (err) {
      // A load still returns what the log holds; a write cannot go on without the record.
      const error = writeFailure(this.#logger, err, `rebuilt session ${id}`, this.#dir);
      if (forWrite) throw error;
    }
    const stored: StoredMeta = { ...replay.meta, [STORAGE_KEY]: { epoch, logBytes: replay.logBytes } };
    return { status: 'valid', committed: { ...state, stored }, messages: replay.messages };
  }

  #ensureDirs(): Promise<void> {
    this.#dirReady ??= (async () => {
      await mkdir(this.#dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      if (this.#logs) await mkdir(this.#logs.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    })();
    return this.#dirReady.catch((err) => {
      this.#dirReady = undefined;
      throw err;
    });
  }
}
